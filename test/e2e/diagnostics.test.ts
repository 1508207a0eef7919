// @backends tsserver native:full
/**
 * get_diagnostics_for_file on ts-basic over the built CLI: a clean file has no errors (complete);
 * an error introduced by a scalpel edit is reported; so is one written to disk by another process
 * a moment before the call (also in a brand-new file), and fixing it on disk clears it.
 */
import { strict as assert } from "node:assert";
import { after, before, describe, it } from "node:test";
import { lineOf, lineText } from "../helpers/anchors.js";
import { readText, type TempProject, writeFromAnotherProcess } from "../helpers/fixtures.js";
import {
  callOk,
  type Diagnostic,
  type EditResult,
  parseDiagnostics,
  type ScalpelHandle,
  serveFixture,
  stopServing,
} from "../helpers/mcp.js";

interface DiagResult {
  relative_path: string;
  diagnostics: Diagnostic[];
  complete: boolean;
}

describe("get_diagnostics_for_file (e2e, typescript-language-server)", () => {
  let fx: TempProject;
  let h: ScalpelHandle;

  before(async () => {
    ({ fx, h } = await serveFixture("ts-basic"));
  });

  after(() => stopServing(h, fx));

  const diags = (relative_path: string, extra: Record<string, unknown> = {}) =>
    callOk<DiagResult>(h, "get_diagnostics_for_file", { relative_path, ...extra });

  const errorsOf = (r: DiagResult) => r.diagnostics.filter((d) => d.severity === "error");

  it("a clean file has no errors, and says the answer is complete", async () => {
    const r = await diags("src/shapes.ts", { min_severity: "error" });
    assert.equal(r.relative_path, "src/shapes.ts");
    assert.equal(r.complete, true);
    assert.deepEqual(r.diagnostics, []);
  });

  it("reports an error introduced by a scalpel edit", async () => {
    const edit = await callOk<EditResult>(h, "replace_symbol_body", {
      name_path: "totalArea",
      relative_path: "src/shapes.ts",
      body: 'export function totalArea(shapes: Shape[]): number {\n  const label: number = "many";\n  return shapes.length + label;\n}',
    });
    assert.equal(edit.applied, true);
    const text = await readText(fx.dir, "src/shapes.ts");
    const line = lineOf(text, 'const label: number = "many";');
    // The edit's own result already says what it broke.
    assert.ok(edit.diagnostics_delta, "an applied edit reports its diagnostics delta");
    assert.deepEqual(
      parseDiagnostics(edit.diagnostics_delta.new).map((d) => [d.relative_path, d.line, d.severity, d.code]),
      [["src/shapes.ts", line, "error", "2322"]],
    );
    assert.deepEqual(edit.diagnostics_delta.resolved, []);
    const r = await diags("src/shapes.ts");
    assert.equal(r.complete, true);
    const errs = errorsOf(r);
    assert.equal(errs.length, 1, JSON.stringify(r.diagnostics));
    const e = errs[0]!;
    assert.equal(e.line, line);
    assert.equal(e.column, lineText(text, line).indexOf("label") + 1, "column of the offending identifier");
    assert.match(e.message, /not assignable/);
    assert.equal(String(e.code), "2322");
    assert.equal(e.symbol, "totalArea", "the error names the symbol that holds it");
  });

  it("an edit that fixes the error reports it resolved", async () => {
    const fix = await callOk<EditResult>(h, "replace_content", {
      relative_path: "src/shapes.ts",
      needle: 'const label: number = "many";',
      replacement: "const label: number = 2;",
      dry_run: true,
    });
    assert.equal(fix.diagnostics_delta, undefined, "a dry run checks nothing");
    const fixed = await callOk<EditResult>(h, "replace_content", {
      relative_path: "src/shapes.ts",
      needle: 'const label: number = "many";',
      replacement: "const label: number = 2;",
    });
    assert.ok(fixed.diagnostics_delta);
    assert.deepEqual(fixed.diagnostics_delta.new, []);
    assert.deepEqual(
      parseDiagnostics(fixed.diagnostics_delta.resolved).map((d) => [d.severity, d.code]),
      [["error", "2322"]],
    );
    // Put the error back for the tests that follow.
    await callOk(h, "undo_edit", { edit_id: fixed.edit_id });
  });

  it("start_line / end_line and min_severity narrow the answer", async () => {
    const text = await readText(fx.dir, "src/shapes.ts");
    const line = lineOf(text, 'const label: number = "many";');
    const outside = await diags("src/shapes.ts", { start_line: 1, end_line: line - 1 });
    assert.deepEqual(errorsOf(outside), []);
    const inside = await diags("src/shapes.ts", { start_line: line, end_line: line, min_severity: "error" });
    assert.equal(inside.diagnostics.length, 1, JSON.stringify(inside.diagnostics));
  });

  it("reports an error written to disk by another process a moment before the call", async () => {
    const old = await readText(fx.dir, "src/colors.ts");
    const broken = `${old}export const broken: string = 42;\n`;
    writeFromAnotherProcess(`${fx.dir}/src/colors.ts`, broken);
    const r = await diags("src/colors.ts");
    assert.equal(r.complete, true);
    const errs = errorsOf(r);
    assert.deepEqual(
      errs.map((d) => d.line),
      [lineOf(broken, "export const broken")],
      JSON.stringify(r.diagnostics),
    );
    assert.match(errs[0]!.message, /not assignable/);

    // and the fix, also from outside, clears it: diagnostics never lag the disk
    writeFromAnotherProcess(`${fx.dir}/src/colors.ts`, old);
    const fixed = await diags("src/colors.ts");
    assert.deepEqual(errorsOf(fixed), [], JSON.stringify(fixed.diagnostics));
  });

  it("reports an error in a file created by another process after the server started", async () => {
    const content = 'import { makeMoney } from "./money";\n\nexport const oops: number = makeMoney(1);\n';
    writeFromAnotherProcess(`${fx.dir}/src/fresh.ts`, content);
    const r = await diags("src/fresh.ts");
    assert.equal(r.complete, true);
    const errs = errorsOf(r);
    assert.deepEqual(
      errs.map((d) => d.line),
      [lineOf(content, "export const oops")],
      JSON.stringify(r.diagnostics),
    );
    assert.match(errs[0]!.message, /Money/);
  });

  it("an error in one file caused by an outside change to another file is seen", async () => {
    const util = await readText(fx.dir, "src/util.ts");
    writeFromAnotherProcess(
      `${fx.dir}/src/util.ts`,
      util.replace("export function clamp(", "export function clampTo("),
    );
    const main = await readText(fx.dir, "src/main.ts");
    const r = await diags("src/main.ts", { min_severity: "error" });
    assert.equal(r.complete, true);
    assert.deepEqual(
      r.diagnostics.map((d) => d.line),
      [lineOf(main, "MathUtil.clamp(area, 0, 100)")],
      JSON.stringify(r.diagnostics),
    );
    writeFromAnotherProcess(`${fx.dir}/src/util.ts`, util);
  });

  it("no result contained the host path of the project", () => {
    assert.deepEqual(h.hostPathLeaks, []);
  });
});
