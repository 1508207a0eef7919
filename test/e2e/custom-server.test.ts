/**
 * A language server declared only in `.scalpel/project.yml` (pyright from this repository's
 * node_modules, by absolute path) serves a Python fixture for every symbol tool.
 */
import { strict as assert } from "node:assert";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { position } from "../helpers/anchors.js";
import { copyFixture, readText, repoRoot, type TempProject } from "../helpers/fixtures.js";
import {
  callOk,
  type FindSymbolResult,
  type ReferencesResult,
  type ScalpelHandle,
  sitesOf,
  startScalpel,
} from "../helpers/mcp.js";

const pyright = join(repoRoot, "node_modules", ".bin", "pyright-langserver");

describe("custom server from project.yml (e2e, pyright)", () => {
  let fx: TempProject;
  let h: ScalpelHandle;

  before(async () => {
    assert.ok(existsSync(pyright), "pyright is a devDependency: run npm install");
    fx = await copyFixture("python-custom");
    await mkdir(join(fx.dir, ".scalpel"), { recursive: true });
    await writeFile(
      join(fx.dir, ".scalpel", "project.yml"),
      [
        "language_servers:",
        "  python:",
        `    command: ${JSON.stringify(pyright)}`,
        '    args: ["--stdio"]',
        '    extensions: [".py"]',
        "    settings:",
        "      python:",
        "        analysis:",
        "          diagnosticMode: openFilesOnly",
        "",
      ].join("\n"),
    );
    h = await startScalpel({ project: fx.dir });
  });

  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  it("detects the declared language and runs its server", async () => {
    const c = await callOk<{
      project: { languages: string[] };
      servers: Array<{ language: string; command: string }>;
    }>(h, "get_current_config");
    assert.deepEqual(c.project.languages, ["python"]);
    assert.ok(
      c.servers.some((s) => s.language === "python" && s.command.includes("pyright-langserver")),
      JSON.stringify(c.servers),
    );
  });

  it("find_symbol finds methods by name path across files", async () => {
    const r = await callOk<FindSymbolResult>(h, "find_symbol", { name_path_pattern: "area" });
    assert.equal(r.complete, true);
    assert.deepEqual(r.symbols.map((s) => `${s.relative_path} ${s.name_path} ${s.kind}`).sort(), [
      "app/shapes.py Circle/area Method",
      "app/shapes.py Square/area Method",
    ]);
  });

  it("find_referencing_symbols gives Circle.area's sites only, with containing functions", async () => {
    const r = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
      name_path: "Circle/area",
      relative_path: "app/shapes.py",
    });
    assert.equal(r.complete, true);
    const report = await readText(fx.dir, "app/report.py");
    const at = (needle: string, offset: number, container: string) => {
      const p = position(report, needle);
      assert.ok(offset > 0);
      return `app/report.py:${p.line} ${container}`;
    };
    // The `area` after the dot; `square.area()` is Square's and must not appear.
    const want = [at("c.area()", 2, "describe"), at("circle.area()", 7, "total_area")].sort();
    assert.deepEqual(
      sitesOf(r)
        .map((x) => `${x.relative_path}:${x.line} ${x.container}`)
        .sort(),
      want,
    );
    assert.deepEqual(h.hostPathLeaks, []);
  });
});
