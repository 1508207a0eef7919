// @backends tsserver native:full
/**
 * safe_delete_symbol on ts-basic over the built CLI: refuses while the symbol is used, listing the
 * references (and writes nothing); deletes an unused symbol (dry run first), after which the
 * fixture type-checks and find_symbol no longer sees it.
 */
import { strict as assert } from "node:assert";
import { after, before, describe, it } from "node:test";
import { lineOf } from "../helpers/anchors.js";
import { assertCompiles, hashTree, readText, type TempProject } from "../helpers/fixtures.js";
import {
  callOk,
  type EditResult,
  editedFiles,
  type FindSymbolResult,
  type ScalpelHandle,
  serveFixture,
  stopServing,
} from "../helpers/mcp.js";

describe("safe_delete_symbol (e2e, typescript-language-server)", () => {
  let fx: TempProject;
  let h: ScalpelHandle;

  before(async () => {
    ({ fx, h } = await serveFixture("ts-basic"));
  });

  after(() => stopServing(h, fx));

  it("refuses to delete a namespace function that is used, listing where", async () => {
    const before1 = await hashTree(fx.dir);
    const r = await h.call("safe_delete_symbol", {
      name_path: "MathUtil/clamp",
      relative_path: "src/util.ts",
    });
    assert.equal(r.isError, true, `must refuse: ${r.text}`);
    const main = await readText(fx.dir, "src/main.ts");
    const report = await readText(fx.dir, "src/report.ts");
    assert.match(r.text, /src\/main\.ts/);
    assert.match(r.text, /src\/report\.ts/);
    assert.ok(r.text.includes(String(lineOf(main, "MathUtil.clamp(area, 0, 100)"))), r.text);
    assert.ok(r.text.includes(String(lineOf(report, "MathUtil.clamp(3, 0, 10)"))), r.text);
    assert.deepEqual(await hashTree(fx.dir), before1, "nothing written");
  });

  it("refuses to delete a method used through inferred receivers, listing its users", async () => {
    const before1 = await hashTree(fx.dir);
    const r = await h.call("safe_delete_symbol", {
      name_path: "Money/multiplyByRate",
      relative_path: "src/money.ts",
    });
    assert.equal(r.isError, true, `must refuse: ${r.text}`);
    for (const f of ["src/wallet.ts", "src/report.ts", "src/format.ts", "src/main.ts"]) {
      assert.ok(r.text.includes(f), `message lists ${f}: ${r.text}`);
    }
    assert.ok(!r.text.includes("src/unrelated.ts"), "the unrelated class's calls are not users");
    assert.deepEqual(await hashTree(fx.dir), before1, "nothing written");
  });

  it("refuses for a symbol used only inside its own file", async () => {
    const r = await h.call("safe_delete_symbol", { name_path: "pick", relative_path: "src/report.ts" });
    assert.equal(r.isError, true, `must refuse: ${r.text}`);
    assert.match(r.text, /pickAndScale|src\/report\.ts/);
  });

  it("dry run of deleting an unused function writes nothing and shows the removal", async () => {
    const before1 = await hashTree(fx.dir);
    const r = await callOk<EditResult>(h, "safe_delete_symbol", {
      name_path: "unusedHelper",
      relative_path: "src/util.ts",
      dry_run: true,
    });
    assert.equal(r.applied, false);
    assert.deepEqual(await hashTree(fx.dir), before1);
    assert.match(r.diff ?? "", /^-export function unusedHelper\(\): string \{$/m);
    assert.match(r.diff ?? "", /^-\s+return "nobody calls me";$/m);
  });

  it("deletes an unused function", async () => {
    const r = await callOk<EditResult>(h, "safe_delete_symbol", {
      name_path: "unusedHelper",
      relative_path: "src/util.ts",
    });
    assert.equal(r.applied, true);
    assert.deepEqual(
      editedFiles(r).map((f) => f.relative_path),
      ["src/util.ts"],
    );
    assert.ok(editedFiles(r)[0]!.removed_lines >= 3, JSON.stringify(r.files));
    const text = await readText(fx.dir, "src/util.ts");
    assert.ok(!text.includes("unusedHelper") && !text.includes("nobody calls me"), text);
    assert.ok(text.includes("export namespace MathUtil"), "the rest of the file stays");
    assert.ok(text.includes("export const EPSILON = 1e-9;"), "the rest of the file stays");
    const found = await callOk<FindSymbolResult>(h, "find_symbol", { name_path_pattern: "unusedHelper" });
    assert.deepEqual(found.symbols, []);
    assertCompiles(fx.dir);
  });

  it("deletes an unused namespace member (indented scope)", async () => {
    const r = await callOk<EditResult>(h, "safe_delete_symbol", {
      name_path: "MathUtil/EPSILON",
      relative_path: "src/util.ts",
    });
    assert.equal(r.applied, true);
    const text = await readText(fx.dir, "src/util.ts");
    assert.ok(!text.includes("EPSILON"), text);
    assert.ok(text.includes("export function clamp("), text);
    assertCompiles(fx.dir);
  });

  it("no result contained the host path of the project", () => {
    assert.deepEqual(h.hostPathLeaks, []);
  });
});
