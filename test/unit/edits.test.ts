// @alone its top-level beforeEach/afterEach would run around every test of a shared process
import * as assert from "node:assert/strict";
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { AppError } from "../../src/core/errors.js";
import { applyPlan } from "../../src/edits/apply.js";
import type { EditPlan } from "../../src/edits/plan.js";
import { workspaceEditToPlan } from "../../src/edits/workspace-edit.js";
import { Sandbox } from "../../src/security/sandbox.js";
import { positionAt, type TextEdit } from "../../src/text/positions.js";
import { makeTempProject, type TempProject } from "../helpers/fixtures.js";

let tmp: TempProject;
let sandbox: Sandbox;

beforeEach(async () => {
  tmp = await makeTempProject("scalpel-edits-");
  sandbox = new Sandbox(tmp.dir);
});
afterEach(() => tmp.cleanup());

async function put(rel: string, text: string): Promise<void> {
  const abs = join(tmp.dir, rel);
  await mkdir(dirname(abs), { recursive: true });
  await writeFile(abs, text);
}
const read = (rel: string) => readFile(join(tmp.dir, rel), "utf8");
const p = (rel: string) => sandbox.resolve(rel);

/** Replaces the first occurrence of `needle` in `text`. */
function replace(text: string, needle: string, newText: string): TextEdit {
  const at = text.indexOf(needle);
  assert.ok(at >= 0);
  return { range: { start: positionAt(text, at), end: positionAt(text, at + needle.length) }, newText };
}

function isCode(code: string) {
  return (e: unknown) => e instanceof AppError && e.code === code;
}

describe("applyPlan", () => {
  test("files read ahead, several at once: the diff in the plan's order, a failure in the plan's order", async () => {
    const plan: EditPlan = [];
    const names = Array.from({ length: 30 }, (_, i) => `m${String(29 - i).padStart(2, "0")}.ts`);
    for (const name of names) {
      const text = `export const ${name.slice(0, 3)} = 1;\n`;
      await put(name, text);
      plan.push({ kind: "edit", path: p(name), edits: [replace(text, "1", "2")], expectedText: text });
    }
    const r = await applyPlan(plan, { dryRun: true });
    assert.deepEqual(
      r.files.map((f) => f.relative_path),
      names,
    );
    assert.deepEqual(
      [...r.diff.matchAll(/^\+\+\+ b\/(.*)$/gm)].map((m) => m[1]),
      names,
    );
    // The first failing file in the plan names the error, whatever the reads ahead met first.
    await put("binary.ts", "\u0000\u0001binary");
    const failing: EditPlan = [
      plan[0]!,
      { kind: "edit", path: p("stale.ts"), edits: [], expectedText: "old" },
      { kind: "edit", path: p("binary.ts"), edits: [], expectedText: "" },
    ];
    await put("stale.ts", "new\n");
    await assert.rejects(applyPlan(failing, { dryRun: true }), isCode("edit_conflict"));
  });

  test("edits, creates, deletes and renames in one plan", async () => {
    const a = "export const a = 1;\n";
    await put("a.ts", a);
    await put("old.ts", "moved\n");
    await put("gone.ts", "bye\n");
    const plan: EditPlan = [
      { kind: "edit", path: p("a.ts"), edits: [replace(a, "1", "2")], expectedText: a },
      { kind: "create", path: p("new/dir/n.ts"), content: "new\n", overwrite: false },
      { kind: "delete", path: p("gone.ts") },
      { kind: "rename", from: p("old.ts"), to: p("moved.ts"), overwrite: false },
    ];
    const r = await applyPlan(plan, { dryRun: false });
    assert.equal(await read("a.ts"), "export const a = 2;\n");
    assert.equal(await read("new/dir/n.ts"), "new\n");
    assert.equal(await read("moved.ts"), "moved\n");
    await assert.rejects(stat(join(tmp.dir, "gone.ts")));
    await assert.rejects(stat(join(tmp.dir, "old.ts")));
    assert.deepEqual(
      r.files.map((f) => [f.relative_path, f.added_lines, f.removed_lines]),
      [
        ["a.ts", 1, 1],
        ["new/dir/n.ts", 1, 0],
        ["gone.ts", 0, 1],
        ["old.ts", 0, 1],
        ["moved.ts", 1, 0],
      ],
    );
    assert.deepEqual(r.before.get(join(tmp.dir, "a.ts")), Buffer.from(a), "exact bytes, for undo");
    assert.equal(r.before.get(join(tmp.dir, "new/dir/n.ts")), null);
    assert.equal(r.after.get(join(tmp.dir, "gone.ts")), null);
    assert.equal(r.written.length, 5);
    assert.match(r.diff, /--- a\/a\.ts\n\+\+\+ b\/a\.ts/);
  });

  test("dry run writes nothing and returns the diff", async () => {
    const a = "x\n";
    await put("a.ts", a);
    const r = await applyPlan(
      [
        { kind: "edit", path: p("a.ts"), edits: [replace(a, "x", "y")] },
        { kind: "create", path: p("b.ts"), content: "b\n", overwrite: false },
      ],
      { dryRun: true },
    );
    assert.equal(await read("a.ts"), "x\n");
    await assert.rejects(stat(join(tmp.dir, "b.ts")));
    assert.deepEqual(r.written, []);
    assert.match(r.diff, /-x\n\+y\n/);
    assert.match(r.diff, /\+\+\+ b\/b\.ts/);
  });

  test("CRLF and BOM are preserved; new text gets the file's line endings", async () => {
    const text = "line1\r\nline2\r\n";
    await writeFile(join(tmp.dir, "w.txt"), `\uFEFF${text}`);
    await applyPlan([{ kind: "edit", path: p("w.txt"), edits: [replace(text, "line2", "a\nb")] }], {
      dryRun: false,
    });
    assert.equal(await read("w.txt"), "\uFEFFline1\r\na\r\nb\r\n");
  });

  test("expectedText that no longer matches the disk → edit_conflict, nothing written", async () => {
    await put("a.ts", "changed by someone\n");
    await put("b.ts", "b\n");
    await assert.rejects(
      applyPlan(
        [
          { kind: "edit", path: p("b.ts"), edits: [replace("b\n", "b", "B")] },
          { kind: "edit", path: p("a.ts"), edits: [], expectedText: "original\n" },
        ],
        { dryRun: false },
      ),
      isCode("edit_conflict"),
    );
    assert.equal(await read("b.ts"), "b\n");
  });

  test("overlapping edits and out-of-range edits are refused before any write", async () => {
    await put("a.ts", "abc\n");
    await put("b.ts", "b\n");
    const touchB: EditPlan[number] = { kind: "edit", path: p("b.ts"), edits: [replace("b\n", "b", "B")] };
    await assert.rejects(
      applyPlan(
        [
          touchB,
          {
            kind: "edit",
            path: p("a.ts"),
            edits: [
              { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 2 } }, newText: "" },
              { range: { start: { line: 0, character: 1 }, end: { line: 0, character: 3 } }, newText: "" },
            ],
          },
        ],
        { dryRun: false },
      ),
      isCode("edit_conflict"),
    );
    await assert.rejects(
      applyPlan(
        [
          touchB,
          {
            kind: "edit",
            path: p("a.ts"),
            edits: [
              { range: { start: { line: 5, character: 0 }, end: { line: 5, character: 1 } }, newText: "" },
            ],
          },
        ],
        { dryRun: false },
      ),
      isCode("edit_conflict"),
    );
    assert.equal(await read("b.ts"), "b\n");
  });

  test("all-or-nothing: a failing second write restores the first file", async () => {
    const a = "keep me\n";
    await put("a.ts", a);
    await put("blocker", "a file where a directory is needed\n");
    await assert.rejects(
      applyPlan(
        [
          { kind: "edit", path: p("a.ts"), edits: [replace(a, "keep", "changed")] },
          { kind: "create", path: p("blocker/new.ts"), content: "x\n", overwrite: false },
        ],
        { dryRun: false },
      ),
      (e) => {
        assert.ok(e instanceof AppError && e.code === "write_failed", String(e));
        assert.ok(!e.message.includes(tmp.dir), e.message);
        assert.match(e.message, /blocker\/new\.ts/);
        return true;
      },
    );
    assert.equal(await read("a.ts"), a);
  });

  test("all-or-nothing: a deleted file and a new file are restored too", async () => {
    await put("del.ts", "still here\n");
    await put("blocker", "file\n");
    await assert.rejects(
      applyPlan(
        [
          { kind: "create", path: p("fresh/f.ts"), content: "f\n", overwrite: false },
          { kind: "delete", path: p("del.ts") },
          { kind: "create", path: p("blocker/x.ts"), content: "x\n", overwrite: false },
        ],
        { dryRun: false },
      ),
      isCode("write_failed"),
    );
    assert.equal(await read("del.ts"), "still here\n");
    await assert.rejects(stat(join(tmp.dir, "fresh")));
  });

  test("create over an existing file needs overwrite", async () => {
    await put("a.ts", "a\r\n");
    await assert.rejects(
      applyPlan([{ kind: "create", path: p("a.ts"), content: "b\n", overwrite: false }], { dryRun: false }),
      isCode("file_exists"),
    );
    await applyPlan([{ kind: "create", path: p("a.ts"), content: "b\n", overwrite: true }], {
      dryRun: false,
    });
    assert.equal(await read("a.ts"), "b\r\n");
  });

  test("editing or deleting a missing file is file_not_found", async () => {
    await assert.rejects(
      applyPlan([{ kind: "edit", path: p("no.ts"), edits: [] }], { dryRun: false }),
      isCode("file_not_found"),
    );
    await assert.rejects(
      applyPlan([{ kind: "delete", path: p("no.ts") }], { dryRun: false }),
      isCode("file_not_found"),
    );
    await applyPlan([{ kind: "delete", path: p("no.ts"), ignoreIfNotExists: true }], { dryRun: false });
  });
});

describe("workspaceEditToPlan", () => {
  const uri = (rel: string) => pathToFileURL(join(tmp.dir, rel)).href;

  test("changes", async () => {
    await put("a.ts", "let a = 1;\nlet b = a;\n");
    const plan = workspaceEditToPlan(
      {
        changes: {
          [uri("a.ts")]: [
            { range: { start: { line: 0, character: 4 }, end: { line: 0, character: 5 } }, newText: "z" },
            { range: { start: { line: 1, character: 8 }, end: { line: 1, character: 9 } }, newText: "z" },
          ],
        },
      },
      sandbox,
    );
    await applyPlan(plan, { dryRun: false });
    assert.equal(await read("a.ts"), "let z = 1;\nlet b = z;\n");
  });

  test("changes, a map, become a plan in path order whatever order the server sent", async () => {
    for (const f of ["b.ts", "a.ts", "sub/c.ts"]) await put(f, "let q = 1;\n");
    const edit = {
      range: { start: { line: 0, character: 4 }, end: { line: 0, character: 5 } },
      newText: "z",
    };
    for (const order of [
      ["sub/c.ts", "b.ts", "a.ts"],
      ["a.ts", "sub/c.ts", "b.ts"],
    ]) {
      const plan = workspaceEditToPlan(
        { changes: Object.fromEntries(order.map((f) => [uri(f), [edit]])) },
        sandbox,
      );
      assert.deepEqual(
        plan.map((op) => (op.kind === "edit" ? op.path.rel : op.kind)),
        ["a.ts", "b.ts", "sub/c.ts"],
      );
    }
  });

  test("documentChanges with resource operations, applied in order", async () => {
    await put("old.ts", "export const x = 1;\n");
    const plan = workspaceEditToPlan(
      {
        documentChanges: [
          { kind: "rename", oldUri: uri("old.ts"), newUri: uri("new.ts") },
          {
            textDocument: { uri: uri("new.ts"), version: null },
            edits: [
              { range: { start: { line: 0, character: 13 }, end: { line: 0, character: 14 } }, newText: "y" },
            ],
          },
          { kind: "create", uri: uri("made.ts") },
          {
            textDocument: { uri: uri("made.ts"), version: null },
            edits: [
              {
                range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
                snippet: { kind: "snippet", value: "const $\u007b1:name} = $0;" },
              },
            ],
          },
        ],
      },
      sandbox,
    );
    assert.deepEqual(
      plan.map((o) => o.kind),
      ["rename", "edit", "create", "edit"],
    );
    await applyPlan(plan, { dryRun: false });
    assert.equal(await read("new.ts"), "export const y = 1;\n");
    assert.equal(await read("made.ts"), "const name = ;");
    await assert.rejects(stat(join(tmp.dir, "old.ts")));
  });

  test("a URI outside the root refuses the whole edit", () => {
    const outside = pathToFileURL(join(tmp.base, "evil.ts")).href;
    for (const edit of [
      { changes: { [outside]: [] } },
      { documentChanges: [{ kind: "create" as const, uri: outside }] },
      { documentChanges: [{ kind: "rename" as const, oldUri: uri("a.ts"), newUri: outside }] },
    ]) {
      assert.throws(() => workspaceEditToPlan(edit, sandbox), isCode("path_outside_project"));
    }
  });
});

describe("applyPlan: encodings and line endings", () => {
  test("a UTF-16LE file is edited in UTF-16LE, BOM kept; new lines take the file's ending", async () => {
    const text = "let a = 1;\r\nlet 😀 = 2;\r\n";
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]);
    await writeFile(join(tmp.dir, "w.ts"), bytes);
    await applyPlan(
      [{ kind: "edit", path: p("w.ts"), edits: [replace(text, "2;", "3;\nlet b = 4;")], expectedText: text }],
      { dryRun: false },
    );
    const out = await readFile(join(tmp.dir, "w.ts"));
    assert.deepEqual([...out.subarray(0, 2)], [0xff, 0xfe]);
    assert.equal(out.subarray(2).toString("utf16le"), "let a = 1;\r\nlet 😀 = 3;\r\nlet b = 4;\r\n");
  });

  test("a lone-CR file gets lone CRs in new text", async () => {
    const text = "a\rb\r";
    await put("cr.txt", text);
    await applyPlan([{ kind: "edit", path: p("cr.txt"), edits: [replace(text, "b", "b\nc")] }], {
      dryRun: false,
    });
    assert.equal(await read("cr.txt"), "a\rb\rc\r");
  });

  test("an edit of a file that is not valid UTF-8 is refused with unsupported_encoding, naming it", async () => {
    const latin1 = Buffer.from([0x78, 0x20, 0x3d, 0x20, 0x22, 0xe9, 0x22, 0x0a]); // x = "é" in Latin-1
    await writeFile(join(tmp.dir, "l1.txt"), latin1);
    await assert.rejects(
      applyPlan(
        [
          {
            kind: "edit",
            path: p("l1.txt"),
            edits: [
              { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, newText: "y" },
            ],
          },
        ],
        { dryRun: false },
      ),
      (e) => isCode("unsupported_encoding")(e) && (e as Error).message.includes("l1.txt"),
    );
    assert.deepEqual(await readFile(join(tmp.dir, "l1.txt")), latin1, "untouched");
    // Moving such a file keeps its bytes exactly.
    await applyPlan([{ kind: "rename", from: p("l1.txt"), to: p("l2.txt"), overwrite: false }], {
      dryRun: false,
    });
    assert.deepEqual(await readFile(join(tmp.dir, "l2.txt")), latin1);
  });

  test("an unchanged file keeps its exact bytes and is not reported", async () => {
    const text = "same\r\n";
    await put("s.txt", `\uFEFF${text}`);
    const r = await applyPlan([{ kind: "edit", path: p("s.txt"), edits: [replace(text, "same", "same")] }], {
      dryRun: false,
    });
    assert.deepEqual(r.files, []);
    assert.deepEqual(r.written, []);
  });
});
