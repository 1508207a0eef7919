// @backends tsserver native
/**
 * `verify: true` end to end (issue 20), TypeScript: an edit that breaks a caller in another file
 * writes nothing (the tree byte for byte, no journal entry) and names the caller's error; a safe
 * edit lands; a dry run checks without writing; an edit that creates a file (checked by writing and
 * restoring) leaves no file or folder behind; a check that cannot cover every user writes nothing
 * and says why. Rust's counterpart is verify-rust.test.ts.
 */
import { strict as assert } from "node:assert";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { lineOf } from "../helpers/anchors.js";
import {
  assertCompiles,
  hashTree,
  makeTempProject,
  readText,
  type TempProject,
  writeTsconfig,
} from "../helpers/fixtures.js";
import { callOk, type EditResult, type ScalpelHandle, startScalpel } from "../helpers/mcp.js";

interface Verified extends EditResult {
  verify?: { passed: boolean; reason?: string; errors?: Record<string, string[]> };
}

const caller = 'import { price } from "./lib";\n\nexport const total: number = price() + 1;\n';
/** Returns a string: `price() + 1` is then a string, which `total: number` refuses (TS2322). */
const breaking = 'export function price(): string {\n  return "x";\n}';
const safe = "export function price(): number {\n  return 2;\n}";
/** One more user than verify checks (verifyFileLimit = 60, with the declaring file). */
const wideUsers = 60;

describe("verify: true (e2e, TypeScript)", () => {
  let fx: TempProject;
  let h: ScalpelHandle;

  before(async () => {
    fx = await makeTempProject("scalpel-verify-");
    await writeTsconfig(fx.dir);
    await mkdir(join(fx.dir, "src", "wide"), { recursive: true });
    await writeFile(join(fx.dir, "src/lib.ts"), "export function price(): number {\n  return 1;\n}\n");
    await writeFile(join(fx.dir, "src/caller.ts"), caller);
    await writeFile(
      join(fx.dir, "src/wide/spread.ts"),
      "export function spread(): number {\n  return 1;\n}\n",
    );
    for (let i = 0; i < wideUsers; i++) {
      await writeFile(
        join(fx.dir, `src/wide/user${i}.ts`),
        `import { spread } from "./spread";\n\nexport const u${i}: number = spread();\n`,
      );
    }
    h = await startScalpel({ project: fx.dir });
  });
  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  it("an edit that breaks a caller in another file writes nothing, leaves no journal entry, and names the caller's error", async () => {
    const tree = await hashTree(fx.dir);
    const r = await h.call<Verified>("replace_symbol_body", {
      name_path: "price",
      relative_path: "src/lib.ts",
      body: breaking,
      verify: true,
    });
    assert.equal(r.isError, false, r.text);
    const v = r.structured;
    assert.equal(v.applied, false, JSON.stringify(v));
    assert.equal(v.edit_id, undefined);
    assert.equal(v.verify?.passed, false, JSON.stringify(v));
    const line = lineOf(caller, "export const total");
    const inCaller = v.verify?.errors?.["src/caller.ts"] ?? [];
    assert.ok(
      inCaller.some((e) => e.startsWith(`${line}:`) && /\[2322\]/.test(e)),
      `the caller's TS2322 at line ${line}: ${JSON.stringify(v.verify)}`,
    );
    assert.match(v.verify?.reason ?? "", /1 new error in 1 file/);
    // The text form says the same.
    assert.match(r.text, /Verify refused it .*nothing was written/);
    assert.match(r.text, /New errors in src\/caller\.ts:\n {2}\d+:\d+ error \[2322\]/);
    assert.deepEqual(await hashTree(fx.dir), tree, "the disk is byte-identical");
    const undo = await h.call("undo_edit", { dry_run: true });
    assert.equal(undo.isError, true, `nothing to undo: ${undo.text}`);
    assert.match(undo.text, /no edit to undo/);
  });

  it("dry_run with verify checks without writing: the diff and the verdict", async () => {
    const tree = await hashTree(fx.dir);
    const broken = await callOk<Verified>(h, "replace_symbol_body", {
      name_path: "price",
      relative_path: "src/lib.ts",
      body: breaking,
      dry_run: true,
      verify: true,
    });
    assert.equal(broken.applied, false);
    assert.match(broken.diff ?? "", /\+export function price\(\): string/);
    assert.equal(broken.verify?.passed, false, JSON.stringify(broken));
    assert.ok(broken.verify?.errors?.["src/caller.ts"], JSON.stringify(broken.verify));
    const fine = await callOk<Verified>(h, "replace_symbol_body", {
      name_path: "price",
      relative_path: "src/lib.ts",
      body: safe,
      dry_run: true,
      verify: true,
    });
    assert.equal(fine.applied, false);
    assert.equal(fine.verify?.passed, true, JSON.stringify(fine));
    assert.deepEqual(fine.diagnostics_delta?.new, [], JSON.stringify(fine.diagnostics_delta));
    assert.deepEqual(await hashTree(fx.dir), tree, "a dry run writes nothing");
  });

  it("a safe edit lands, with the check's delta and an undoable journal entry", async () => {
    const r = await callOk<Verified>(h, "replace_symbol_body", {
      name_path: "price",
      relative_path: "src/lib.ts",
      body: safe,
      verify: true,
    });
    assert.equal(r.applied, true, JSON.stringify(r));
    assert.equal(r.verify?.passed, true);
    assert.ok(r.edit_id);
    assert.equal(r.diagnostics_delta?.complete, true, JSON.stringify(r.diagnostics_delta));
    assert.ok((r.diagnostics_delta?.checked_count ?? 0) >= 2, JSON.stringify(r.diagnostics_delta));
    assert.match(await readText(fx.dir, "src/lib.ts"), /return 2;/);
    assertCompiles(fx.dir);
  });

  it("a new file with an error (checked by writing and restoring) leaves no file or folder behind", async () => {
    const tree = await hashTree(fx.dir);
    const r = await callOk<Verified>(h, "create_text_file", {
      relative_path: "src/extra/broken.ts",
      content: 'import { price } from "../lib";\n\nexport const flag: boolean = price();\n',
      verify: true,
    });
    assert.equal(r.applied, false, JSON.stringify(r));
    assert.ok(
      (r.verify?.errors?.["src/extra/broken.ts"] ?? []).some((e) => /\[2322\]/.test(e)),
      JSON.stringify(r.verify),
    );
    assert.deepEqual(await hashTree(fx.dir), tree);
    assert.equal(existsSync(join(fx.dir, "src", "extra")), false, "the folder it made is gone");
    // The same route, passing: a move lands and its importer follows.
    const moved = await callOk<Verified>(h, "move_file", {
      relative_path: "src/lib.ts",
      to_path: "src/core/lib.ts",
      verify: true,
    });
    assert.equal(moved.applied, true, JSON.stringify(moved));
    assert.equal(moved.verify?.passed, true);
    assert.match(await readText(fx.dir, "src/caller.ts"), /from "\.\/core\/lib"/);
    assertCompiles(fx.dir);
  });

  it("a check that cannot cover every user writes nothing and says why", async () => {
    const tree = await hashTree(fx.dir);
    const r = await callOk<Verified>(h, "replace_symbol_body", {
      name_path: "spread",
      relative_path: "src/wide/spread.ts",
      body: "export function spread(): number {\n  return 3;\n}",
      verify: true,
    });
    assert.equal(r.applied, false, JSON.stringify(r));
    assert.equal(r.verify?.passed, false);
    assert.match(
      r.verify?.reason ?? "",
      /could not finish: 1 of 61 files in scope were not checked \(at most 60 are\)/,
    );
    assert.deepEqual(await hashTree(fx.dir), tree);
  });
});
