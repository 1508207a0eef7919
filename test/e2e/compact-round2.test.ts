/**
 * Compact shapes, round 2 (issue #9), end to end over the built CLI with tsserver, in both forms a
 * host may show (structuredContent as JSON, and the text):
 * - a bare name that matches only a function's overloads is the function for references and rename;
 * - rename: an import whose module path names a file like the symbol is not a "missed site";
 * - an applied symbol edit does not echo the caller's own text back (show_diff does; a dry run does);
 *   the delta counts the files it compared and lists only findings, without tsserver's `source`;
 * - find_implementations and a directory's overview name each file once, one line per symbol;
 * - search_for_pattern names each file once, its matching lines under it.
 */
import { strict as assert } from "node:assert";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { lineOf, linesOf } from "../helpers/anchors.js";
import { makeTempProject, readText, type TempProject, writeTsconfig } from "../helpers/fixtures.js";
import {
  callOk,
  editedFiles,
  type OutlineFile,
  outlineSymbols,
  parseDiagnostics,
  type ReferencesResult,
  type ScalpelHandle,
  type SearchFile,
  searchHits,
  sitesOf,
  startScalpel,
  type ToolResult,
} from "../helpers/mcp.js";

const scheduleTs = [
  "export function schedule(work: () => void): void;",
  "export function schedule(work: () => void, delay: number): void;",
  "export function schedule(work: () => void, delay = 0): void {",
  "  setTimeout(work, delay);",
  "}",
  "",
].join("\n");
const useA =
  'import { schedule } from "./util/schedule";\n\nexport function a(): void {\n  schedule(() => {});\n}\n';
const useB =
  "import { schedule } from './util/schedule';\n\nexport function b(): void {\n  schedule(() => {}, 5);\n  schedule(() => {});\n}\n";
const lib = "export function price(): number {\n  return 1;\n}\n";
const caller = 'import { price } from "./lib";\n\nexport const total: number = price() + 1;\n';
const shapes = [
  "export abstract class Base {",
  "  abstract size(): number;",
  "}",
  "export class Small extends Base {",
  "  size(): number {",
  "    return 1;",
  "  }",
  "}",
  "export class Large extends Base {",
  "  size(): number {",
  "    return 2;",
  "  }",
  "}",
  "",
].join("\n");

interface Edit {
  applied: boolean;
  edit_id?: string;
  files: string[];
  diff?: string;
  diagnostics_delta?: {
    new: string[];
    resolved: string[];
    checked_count: number;
    complete: boolean;
  } & Record<string, unknown>;
  possible_missed_sites?: unknown[];
  note?: string;
}

/** Every string value in a JSON tree that sits under `key`. */
function valuesOf(x: unknown, key: string): unknown[] {
  if (Array.isArray(x)) return x.flatMap((v) => valuesOf(v, key));
  if (x === null || typeof x !== "object") return [];
  return Object.entries(x).flatMap(([k, v]) => [...(k === key ? [v] : []), ...valuesOf(v, key)]);
}

describe("compact shapes, round 2 (e2e, tsserver, both forms)", () => {
  let tmp: TempProject;
  let h: ScalpelHandle;

  before(async () => {
    tmp = await makeTempProject("scalpel-compact2-");
    await mkdir(join(tmp.dir, "src", "util"), { recursive: true });
    await writeTsconfig(tmp.dir);
    await writeFile(join(tmp.dir, "src", "util", "schedule.ts"), scheduleTs);
    await writeFile(join(tmp.dir, "src", "a.ts"), useA);
    await writeFile(join(tmp.dir, "src", "b.ts"), useB);
    await writeFile(join(tmp.dir, "src", "lib.ts"), lib);
    await writeFile(join(tmp.dir, "src", "caller.ts"), caller);
    await writeFile(join(tmp.dir, "src", "shapes.ts"), shapes);
    h = await startScalpel({ project: tmp.dir });
  });

  after(async () => {
    await h?.close();
    await tmp?.cleanup();
  });

  it("a bare name matching only overloads finds the function's references (as an index does)", async () => {
    const file = "src/util/schedule.ts";
    const bare = await h.call<ReferencesResult>("find_referencing_symbols", {
      name_path: "schedule",
      relative_path: file,
    });
    assert.equal(bare.isError, false, bare.text);
    const indexed = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
      name_path: "schedule[0]",
      relative_path: file,
    });
    const keys = (r: ReferencesResult) =>
      sitesOf(r)
        .map((s) => `${s.relative_path}:${s.line}`)
        .sort();
    const b = await readText(tmp.dir, "src/b.ts");
    const want = [
      `src/a.ts:${lineOf(useA, "import")}`,
      `src/a.ts:${lineOf(useA, "schedule(() => {});")}`,
      `src/b.ts:${lineOf(b, "import")}`,
      ...linesOf(b, "  schedule(").map((l) => `src/b.ts:${l}`),
    ].sort();
    assert.deepEqual(keys(bare.structured), want, bare.text);
    assert.deepEqual(keys(indexed), want);
    assert.match(bare.text, /src\/b\.ts/);
  });

  it("an applied body replacement summarises its diff; the delta counts files and lists findings", async () => {
    const body = 'export function price(): string {\n  return "1";\n}';
    const r: ToolResult<Edit> = await h.call("replace_symbol_body", {
      name_path: "price",
      relative_path: "src/lib.ts",
      body,
    });
    assert.equal(r.isError, false, r.text);
    const e = r.structured;
    assert.equal(e.applied, true);
    assert.equal(e.diff, undefined, "the caller's own text is not echoed");
    assert.deepEqual(e.files, ["src/lib.ts (+2 -2) 1 site, at line 1"]);
    assert.deepEqual(editedFiles(e), [
      { relative_path: "src/lib.ts", added_lines: 2, removed_lines: 2, sites: 1, lines: [1] },
    ]);
    assert.doesNotMatch(r.text, /^(---|\+\+\+|@@) /m, "no diff in the text either");
    assert.match(r.text, /src\/lib\.ts \(\+2 -2\) 1 site, at line 1/);
    const delta = e.diagnostics_delta;
    assert.ok(delta, r.text);
    assert.equal("checked_files" in delta, false, "no list of every compared file");
    assert.ok(delta.checked_count >= 2, JSON.stringify(delta));
    assert.match(r.text, new RegExp(`Checked ${delta.checked_count} files\\.`));
    const broke = parseDiagnostics(delta.new).filter((d) => d.relative_path === "src/caller.ts");
    assert.deepEqual(
      broke.map((d) => [d.line, d.severity, String(d.code)]),
      [[lineOf(caller, "export const total"), "error", "2322"]],
      JSON.stringify(delta),
    );
    assert.deepEqual(valuesOf(e, "source"), [], "tsserver's source says nothing: absent");
    assert.match(r.text, /src\/caller\.ts:3:\d+ error \[2322\]/);
    await callOk(h, "undo_edit", { edit_id: e.edit_id });

    // Asked for: the diff comes back; a dry run always shows it.
    const shown = await callOk<Edit>(h, "replace_symbol_body", {
      name_path: "price",
      relative_path: "src/lib.ts",
      body,
      show_diff: true,
    });
    assert.match(shown.diff ?? "", /^\+ {2}return "1";$/m);
    assert.equal(editedFiles(shown)[0]?.sites, undefined, "with the diff, no summary");
    await callOk(h, "undo_edit", { edit_id: shown.edit_id });
    const dry: ToolResult<Edit> = await h.call("replace_symbol_body", {
      name_path: "price",
      relative_path: "src/lib.ts",
      body,
      dry_run: true,
    });
    assert.match(dry.structured.diff ?? "", /^- {2}return 1;$/m);
    assert.match(dry.text, /^- {2}return 1;$/m);
    assert.equal(await readText(tmp.dir, "src/lib.ts"), lib);
  });

  it("find_implementations names each file once, one line per implementation", async () => {
    const r: ToolResult<{ implementations: OutlineFile[] }> = await h.call("find_implementations", {
      name_path: "Base",
      relative_path: "src/shapes.ts",
    });
    assert.equal(r.isError, false, r.text);
    assert.deepEqual(r.structured.implementations, [
      `src/shapes.ts\nSmall [Class] ${lineOf(shapes, "class Small")}-8\nLarge [Class] ${lineOf(shapes, "class Large")}-13`,
    ]);
    assert.equal(JSON.stringify(r.structured.implementations).split("src/shapes.ts").length, 2);
    // In the text: the file of the symbol (its line in the head), then the one entry of its implementations.
    assert.equal(r.text.split("\n").slice(1).join("\n").split("src/shapes.ts").length, 2, r.text);
    assert.match(r.text, /^2 implementations of Base \[Class\] src\/shapes\.ts:1-3\n/);
    assert.match(r.text, /^ {2}Small \[Class\] 4-8$/m);
  });

  it("a directory's overview lists each file's top level as outline lines in both forms", async () => {
    const r: ToolResult<{ files: OutlineFile[] }> = await h.call("get_symbols_overview", {
      relative_path: "src",
    });
    assert.equal(r.isError, false, r.text);
    const shapesEntry = r.structured.files.find((f) => f.startsWith("src/shapes.ts\n"));
    assert.ok(typeof shapesEntry === "string", JSON.stringify(r.structured));
    assert.deepEqual(
      outlineSymbols([shapesEntry]).map((s) => `${s.name_path} ${s.kind} ${s.start_line}-${s.end_line}`),
      ["Base Class 1-3", "Small Class 4-8", "Large Class 9-13"],
    );
    assert.match(r.text, /^src\/shapes\.ts\n {2}Base \[Class\] 1-3\n {2}Small \[Class\] 4-8$/m);
    // depth 1 asks for members: Symbol objects as before.
    const deep = await callOk<{
      files: Array<{ relative_path: string; symbols?: Array<{ children?: unknown[] }> }>;
    }>(h, "get_symbols_overview", { relative_path: "src", depth: 1 });
    const deepShapes = deep.files.find((f) => f.relative_path === "src/shapes.ts");
    assert.equal(deepShapes?.symbols?.[0]?.children?.length, 1);
  });

  it("search_for_pattern names each file once, its matching lines under it, in both forms", async () => {
    const r: ToolResult<{ matches: SearchFile[]; files: number; total: number }> = await h.call(
      "search_for_pattern",
      { pattern: "^\\s+schedule\\(", relative_path: "src" },
    );
    assert.equal(r.isError, false, r.text);
    const b = await readText(tmp.dir, "src/b.ts");
    assert.deepEqual(r.structured.matches, [
      { relative_path: "src/a.ts", hits: [{ line: 4, snippet: "4:   schedule(() => {});" }] },
      {
        relative_path: "src/b.ts",
        hits: linesOf(b, "  schedule(").map((line) => ({
          line,
          snippet: `${line}: ${b.split("\n")[line - 1]}`,
        })),
      },
    ]);
    assert.equal(r.structured.total, 3);
    assert.equal(r.structured.files, 2);
    assert.equal(
      r.text,
      [
        "3 matches in 2 files:",
        "src/a.ts",
        "  4:   schedule(() => {});",
        "src/b.ts",
        "  4:   schedule(() => {}, 5);",
        "  5:   schedule(() => {});",
      ].join("\n"),
    );
    // With context, a separator between one match's lines and the next's.
    const ctx = await h.call<{ matches: SearchFile[] }>("search_for_pattern", {
      pattern: "^\\s+schedule\\(",
      relative_path: "src/b.ts",
      context_lines: 1,
    });
    assert.equal(searchHits(ctx.structured).length, 2);
    assert.match(
      ctx.text,
      /^2 matches in 1 file:\nsrc\/b\.ts\n {2}3: [^\n]*\n {2}4: [^\n]*\n {2}5: [^\n]*\n {2}--\n {2}4: /,
    );
  });

  // Last: it renames the fixture's function.
  it("rename by the bare overloaded name; imports of a module named like it are not missed sites", async () => {
    const r: ToolResult<Edit> = await h.call("rename_symbol", {
      name_path: "schedule",
      relative_path: "src/util/schedule.ts",
      new_name: "runLater",
    });
    assert.equal(r.isError, false, r.text);
    assert.equal(r.structured.applied, true);
    assert.deepEqual(
      editedFiles(r.structured)
        .map((f) => f.relative_path)
        .sort(),
      ["src/a.ts", "src/b.ts", "src/util/schedule.ts"],
    );
    const b = await readText(tmp.dir, "src/b.ts");
    assert.equal(linesOf(b, "runLater(").length, 2);
    assert.match(b, /^import \{ runLater \} from '\.\/util\/schedule';$/m, "module paths are not renamed");
    assert.equal((await readText(tmp.dir, "src/util/schedule.ts")).split("runLater").length, 4);
    assert.equal(r.structured.possible_missed_sites, undefined, JSON.stringify(r.structured));
    assert.doesNotMatch(r.text, /Possible missed sites/);
    assert.match(r.structured.note ?? "", /2 imports keep 'schedule' in their module path/);
    assert.match(r.text, /2 imports keep 'schedule' in their module path/);
    assert.equal(
      r.structured.diagnostics_delta?.new.length,
      0,
      JSON.stringify(r.structured.diagnostics_delta),
    );
  });
});
