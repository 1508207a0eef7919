// The token benchmark's scoring (bench/tokens): characters counted in both forms a host may show,
// precision/recall against a truth set, where JSON characters go, and the grep route's model of
// Claude Code's tools (what Grep/Read/Edit return, and that Edit needs a Read first).
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { AgentTools, catN, tscErrorSites } from "../../bench/tokens/agent-tools.js";
import {
  fieldChars,
  formChars,
  precisionRecall,
  SAME_NAME,
  SAME_PATH,
  SAME_PATH_AS_PREVIOUS,
} from "../../bench/tokens/score.js";

test("formChars counts the text items and JSON.stringify(structuredContent) separately", () => {
  const structured = { symbols: [{ name: "a", line: 1 }] };
  const r = {
    content: [
      { type: "text", text: "abc" },
      { type: "text", text: "de" },
    ],
    structuredContent: structured,
  };
  assert.deepEqual(formChars(r), { text: "abc\nde".length, json: JSON.stringify(structured).length });
  // An error result has no structured content: a host shows its text in either case.
  assert.deepEqual(formChars({ content: [{ type: "text", text: "Error (x): y" }], isError: true }), {
    text: 12,
    json: 12,
  });
});

test("precisionRecall scores sets, ignoring duplicates, with the empty cases defined", () => {
  const p = precisionRecall(["a", "b", "b", "x"], ["a", "b", "c", "d"]);
  assert.deepEqual(p, { precision: 2 / 3, recall: 2 / 4, answered: 3, truth: 4, hits: 2 });
  assert.deepEqual(precisionRecall([], []), { precision: 1, recall: 1, answered: 0, truth: 0, hits: 0 });
  const none = precisionRecall([], ["a"]);
  assert.equal(none.precision, 1);
  assert.equal(none.recall, 0);
});

test("fieldChars attributes every leaf field's characters and flags repeated fields", () => {
  const v = {
    relative_path: "a.ts",
    files: [
      { relative_path: "a.ts", name: "X", name_path: "X" },
      { relative_path: "b.ts", name: "Y", name_path: "Z/Y" },
      { relative_path: "b.ts", line: 3 },
    ],
  };
  const f = fieldChars(v);
  const leaf = (k: string, x: unknown) => JSON.stringify(k).length + 2 + JSON.stringify(x).length;
  assert.equal(f.relative_path, leaf("relative_path", "a.ts") + leaf("relative_path", "b.ts"));
  assert.equal(f[SAME_PATH], leaf("relative_path", "a.ts"));
  assert.equal(f[SAME_PATH_AS_PREVIOUS], leaf("relative_path", "b.ts"));
  assert.equal(f[SAME_NAME], leaf("name_path", "X"));
  assert.equal(f.name_path, leaf("name_path", "Z/Y"));
  assert.equal(f.files, JSON.stringify("files").length + 2);
  // Everything but braces, brackets and separators between items is attributed.
  const attributed = Object.values(f).reduce((a, b) => a + b, 0);
  assert.ok(attributed <= JSON.stringify(v).length && attributed > JSON.stringify(v).length - 20);
});

test("the grep route's tools return what Claude Code's do, and Edit needs a Read", async () => {
  const dir = await mkdtemp(join(tmpdir(), "scalpel-bench-score-"));
  try {
    await writeFile(join(dir, "m.ts"), "export function f() {}\nconst g = f();\n\n// f again\n");
    const a = new AgentTools(dir);
    const hits = a.grep(/\bf\b/, "");
    assert.deepEqual(
      hits.map((h) => `${h.file}:${h.line}`),
      ["m.ts:1", "m.ts:2", "m.ts:4"],
    );
    assert.equal(
      a.calls[0]!.chars,
      "m.ts:1:export function f() {}\nm.ts:2:const g = f();\nm.ts:4:// f again".length,
    );
    assert.throws(() => a.edit("m.ts", "const g", "const h"), /not read first/);
    const shown = a.readFile("m.ts", 2, 2);
    assert.deepEqual(shown, { first: 2, last: 3 });
    assert.equal(a.calls[1]!.chars, catN(["const g = f();", ""], 2).length);
    assert.equal(catN(["x"], 7), "     7\tx");
    a.edit("m.ts", "const g", "const h");
    // The confirmation and the edited line with up to 4 lines around it, numbered.
    const after = ["export function f() {}", "const h = f();", "", "// f again"];
    const snippet = `The file m.ts has been updated. Here's the result of running \`cat -n\` on a snippet of the edited file:\n${catN(after, 1)}`;
    assert.equal(a.calls[2]!.chars, snippet.length);
    a.edit("m.ts", "f", "k", true);
    assert.equal(
      a.calls[3]!.chars,
      "The file m.ts has been updated. All occurrences of 'f' were successfully replaced with 'k'.".length,
    );
    // A whole-file Read numbers every line and adds none for the final newline.
    assert.equal(
      a.wholeReadChars("m.ts"),
      catN(["export function f() {}", "const h = f();", "", "// f again"], 1).length,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("tscErrorSites reads tsc's `file(line,col): error` lines", () => {
  const out =
    "src/a.ts(12,5): error TS2554: Expected 2 arguments, but got 1.\nsrc/b/c.ts(3,1): error TS2304: x\n  continuation\n";
  assert.deepEqual(tscErrorSites(out, "/p"), [
    { file: "src/a.ts", line: 12 },
    { file: "src/b/c.ts", line: 3 },
  ]);
});
