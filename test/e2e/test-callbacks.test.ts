// @backends tsserver native:full
/**
 * Symbol hygiene over the built CLI and tsls, on a project with describe/it test callbacks
 * (fixture ts-tests): what an anonymous callback declares is never a symbol nor a containing
 * symbol, a type alias is `TypeParameter` (not `Variable`), and `exclude_tests` leaves out the
 * test files the TypeScript adapter declares (`*.test.ts`, `test/`).
 */
import { strict as assert } from "node:assert";
import { after, before, describe, it } from "node:test";
import { lineOf, linesOf } from "../helpers/anchors.js";
import { readText, type TempProject } from "../helpers/fixtures.js";
import {
  callOk,
  type FindSymbolResult,
  type ReferencesResult,
  type ScalpelHandle,
  serveFixture,
  sitesOf,
  stopServing,
} from "../helpers/mcp.js";

describe("callbacks, type aliases and test files (e2e, tsls)", () => {
  let fx: TempProject;
  let h: ScalpelHandle;

  before(async () => {
    ({ fx, h } = await serveFixture("ts-tests"));
  });
  after(() => stopServing(h, fx));

  it("find_symbol finds no local of a callback, at the top level or below", async () => {
    // `result` is declared in startOfWeek (a named function: its local), in a dates.map()
    // callback of weekStarts and in three it() callbacks: only the first is a symbol.
    const r = await callOk<FindSymbolResult>(h, "find_symbol", { name_path_pattern: "result" });
    assert.deepEqual(
      r.symbols.map((s) => `${s.relative_path} ${s.name_path}`),
      ["src/week.ts startOfWeek/result"],
    );
    for (const name of ["date", "expected"]) {
      const none = await callOk<FindSymbolResult>(h, "find_symbol", { name_path_pattern: name });
      assert.deepEqual(
        none.symbols.map((s) => s.name_path),
        [],
      );
    }
  });

  it("references in callbacks belong to the nearest named declaration, or to none", async () => {
    const r = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
      name_path: "startOfWeek",
      relative_path: "src/week.ts",
      context_lines: 0,
    });
    const test = await readText(fx.dir, "src/week.test.ts");
    const cal = await readText(fx.dir, "src/calendar.ts");
    const want = [
      `src/calendar.ts:${lineOf(cal, "import")} null`,
      `src/calendar.ts:${lineOf(cal, "startOfWeek(d")} weekStarts`,
      `src/calendar.ts:${lineOf(cal, "thisWeek")} thisWeek`,
      `src/week.test.ts:${lineOf(test, "import { startOfWeek")} null`,
      `src/week.test.ts:${lineOf(test, "const monday")} mondayOf`,
      // Every call inside describe()/it() callbacks is top-level code: never `result`.
      ...linesOf(test, "= startOfWeek(")
        .filter((l) => l !== lineOf(test, "const monday"))
        .map((l) => `src/week.test.ts:${l} null`),
    ].sort();
    assert.equal(want.length, 8);
    const got = sitesOf(r)
      .map((ref) => `${ref.relative_path}:${ref.line} ${ref.container ?? "null"}`)
      .sort();
    assert.deepEqual(got, want);
  });

  it("a type alias is TypeParameter, and include_kinds selects it", async () => {
    const r = await callOk<FindSymbolResult>(h, "find_symbol", {
      name_path_pattern: "Day",
      relative_path: "src/week.ts",
    });
    assert.deepEqual(
      r.symbols.map((s) => `${s.name_path} ${s.kind}`),
      ["Day TypeParameter"],
    );
    const aliases = await callOk<FindSymbolResult>(h, "find_symbol", {
      name_path_pattern: "e",
      substring_matching: true,
      relative_path: "src",
      include_kinds: ["TypeParameter"],
    });
    assert.deepEqual(aliases.symbols.map((s) => s.name_path).sort(), ["WeekOptions"]);
    const variables = await callOk<FindSymbolResult>(h, "find_symbol", {
      name_path_pattern: "thisWeek",
      include_kinds: ["Variable", "Constant"],
    });
    assert.equal(variables.symbols.length, 1, "a real top-level constant keeps its kind");
  });

  it("exclude_tests drops the test files' symbols and references, and nothing else", async () => {
    const all = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
      name_path: "startOfWeek",
      relative_path: "src/week.ts",
      context_lines: 0,
    });
    const noTests = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
      name_path: "startOfWeek",
      relative_path: "src/week.ts",
      context_lines: 0,
      exclude_tests: true,
    });
    const where = (x: ReferencesResult) => sitesOf(x).map((ref) => `${ref.relative_path}:${ref.line}`);
    assert.ok(where(all).some((w) => w.startsWith("src/week.test.ts:")));
    assert.deepEqual(
      where(noTests),
      where(all).filter((w) => !w.startsWith("src/week.test.ts:")),
    );
    assert.ok(noTests.files.length > 0);

    const helpers = async (exclude: boolean) =>
      (
        await callOk<FindSymbolResult>(h, "find_symbol", {
          name_path_pattern: "/mondayOf",
          exclude_tests: exclude,
        })
      ).symbols.length +
      (
        await callOk<FindSymbolResult>(h, "find_symbol", {
          name_path_pattern: "/expectEqual",
          exclude_tests: exclude,
        })
      ).symbols.length;
    assert.equal(await helpers(false), 2, "src/week.test.ts and test/harness.ts are searched by default");
    assert.equal(await helpers(true), 0, "a *.test.ts file and a file under test/ are test files");
    const overview = async (exclude: boolean) =>
      (
        await callOk<{ files: string[] }>(h, "get_symbols_overview", {
          relative_path: ".",
          exclude_tests: exclude,
        })
      ).files.map((f) => f.split("\n")[0]);
    assert.deepEqual(await overview(false), [
      "src/calendar.ts",
      "src/week.test.ts",
      "src/week.ts",
      "test/harness.ts",
    ]);
    assert.deepEqual(await overview(true), ["src/calendar.ts", "src/week.ts"]);
    const kept = await callOk<FindSymbolResult>(h, "find_symbol", {
      name_path_pattern: "/startOfWeek",
      exclude_tests: true,
    });
    assert.equal(kept.symbols.length, 1);
  });
});
