// @backends tsserver native:full
/**
 * An edit's diagnostics delta covers the files that use what it changed (#19): replace_content
 * changing a function's return type reports the importer it breaks — never "complete, nothing new".
 */
import { strict as assert } from "node:assert";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { makeTempProject, type TempProject, writeTsconfig } from "../helpers/fixtures.js";
import {
  callOk,
  type EditResult,
  parseDiagnostics,
  type ScalpelHandle,
  startScalpel,
} from "../helpers/mcp.js";

describe("diagnostics delta of a text edit covers dependents (e2e)", () => {
  let fx: TempProject;
  let h: ScalpelHandle;

  before(async () => {
    fx = await makeTempProject();
    await writeTsconfig(fx.dir);
    await mkdir(join(fx.dir, "src"), { recursive: true });
    await writeFile(
      join(fx.dir, "src/options.ts"),
      [
        "export interface Options {",
        "  weekStartsOn: number;",
        "}",
        "",
        "export function getDefaultOptions(): Options {",
        "  return { weekStartsOn: 0 };",
        "}",
        "",
      ].join("\n"),
    );
    await writeFile(
      join(fx.dir, "src/week.ts"),
      [
        'import { getDefaultOptions } from "./options";',
        "",
        "export function startOfWeek(day: number): number {",
        "  return day - getDefaultOptions().weekStartsOn;",
        "}",
        "",
      ].join("\n"),
    );
    h = await startScalpel({ project: fx.dir });
  });
  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  it("replace_content breaking an importer names the importer's new error", async () => {
    const r = await callOk<EditResult>(h, "replace_content", {
      relative_path: "src/options.ts",
      needle: "getDefaultOptions(): Options {\n  return { weekStartsOn: 0 };",
      replacement: 'getDefaultOptions(): string {\n  return "monday";',
    });
    assert.equal(r.applied, true);
    const delta = r.diagnostics_delta;
    assert.ok(delta, JSON.stringify(r));
    const inImporter = parseDiagnostics(delta.new).filter((d) => d.relative_path === "src/week.ts");
    assert.ok(
      inImporter.length > 0 || delta.complete === false,
      `the importer's error, or complete: false — got ${JSON.stringify(delta)}`,
    );
    assert.ok(inImporter.length > 0, `src/week.ts's error is reported: ${JSON.stringify(delta)}`);
    assert.match(inImporter[0]!.message, /weekStartsOn/);
  });
});
