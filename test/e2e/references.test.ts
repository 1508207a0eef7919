/**
 * find_referencing_symbols on ts-basic over the built CLI: every type-precise call site of
 * Money.multiplyByRate (inferred receivers, chains, array elements, await, callbacks, property
 * initialisers, top-level constants, an exported arrow function) with its containing symbol and a
 * snippet, none of Thermometer's same-named method, `complete: true`.
 */

import { strict as assert } from "node:assert";
import { after, before, describe, it } from "node:test";
import { siteLine } from "../../src/tools/find-referencing-symbols.js";
import { lineOf, lineText, sitesOn } from "../helpers/anchors.js";
import {
  copyFixture,
  type ExpectedSite,
  moneyRateSites,
  otherRateSites,
  readText,
  siteKeys,
  type TempProject,
} from "../helpers/fixtures.js";
import { callOk, type ReferencesResult, type ScalpelHandle, startScalpel } from "../helpers/mcp.js";

describe("find_referencing_symbols (e2e, typescript-language-server)", () => {
  let fx: TempProject;
  let h: ScalpelHandle;
  let expected: ExpectedSite[];
  let result: ReferencesResult;

  before(async () => {
    fx = await copyFixture("ts-basic");
    expected = await moneyRateSites(fx.dir);
    h = await startScalpel({ project: fx.dir });
    result = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
      name_path: "Money/multiplyByRate",
      relative_path: "src/money.ts",
    });
  });

  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  it("is complete and names the symbol", () => {
    assert.equal(result.complete, true, `incomplete: ${result.incomplete_reason}`);
    assert.notEqual(result.truncated, true);
    assert.equal(result.symbol.name_path, "Money/multiplyByRate");
    assert.equal(result.symbol.relative_path, "src/money.ts");
  });

  it("returns exactly the type-precise call sites (file, line, column)", () => {
    assert.deepEqual(siteKeys(result.references), siteKeys(expected));
  });

  it("contains none of the same-named unrelated methods' calls", async () => {
    const others = new Set(siteKeys(await otherRateSites(fx.dir)));
    const wrong = siteKeys(result.references).filter((k) => others.has(k));
    assert.deepEqual(wrong, []);
    assert.ok(!result.references.some((r) => r.relative_path === "src/unrelated.ts"));
  });

  it("does not count the declaration as a reference", async () => {
    const money = await readText(fx.dir, "src/money.ts");
    const declLine = lineOf(money, "multiplyByRate(rate: number): Money {");
    assert.ok(!result.references.some((r) => r.relative_path === "src/money.ts" && r.line === declLine));
  });

  it("attributes each site to its innermost named declaration (callbacks and locals belong to the function)", () => {
    const got = result.references
      .map((r) => `${r.relative_path}:${r.line}:${r.column} ${r.containing_symbol?.name_path ?? "null"}`)
      .sort();
    const want = expected.map((s) => `${s.relative_path}:${s.line}:${s.column} ${s.containing}`).sort();
    assert.deepEqual(got, want);
  });

  it("gives containing symbols with kinds and spans that enclose the reference", () => {
    for (const r of result.references) {
      const c = r.containing_symbol;
      assert.ok(c, `containing symbol for ${r.relative_path}:${r.line}`);
      assert.ok(
        c.start_line <= r.line && r.line <= c.end_line,
        `${JSON.stringify(c)} encloses line ${r.line}`,
      );
      assert.equal(typeof c.kind, "string");
    }
    const scaled = result.references.find((r) => r.containing_symbol?.name_path === "Wallet/scaledAll");
    assert.equal(scaled?.containing_symbol?.kind, "Method");
    const ledger = result.references.find((r) => r.containing_symbol?.name_path === "Ledger/base");
    assert.equal(ledger?.containing_symbol?.kind, "Property");
  });

  it("each reference's snippet is its own line, trimmed (context_lines defaults to 0)", async () => {
    for (const r of result.references) {
      const text = await readText(fx.dir, r.relative_path);
      const line = lineText(text, r.line);
      assert.equal(r.snippet, siteLine(line, r.column - 1), `${r.relative_path}:${r.line}`);
      // Cut only past 100 characters, and never so that the site itself is lost.
      if (line.trim().length <= 100) assert.equal(r.snippet, line.trim());
      else assert.ok(r.snippet.length <= 100 && r.snippet.includes("multiplyByRate"), r.snippet);
    }
  });

  it("context_lines: 1 gives numbered snippets of at most three lines around the site", async () => {
    const r = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
      name_path: "Money/multiplyByRate",
      relative_path: "src/money.ts",
      context_lines: 1,
    });
    assert.deepEqual(siteKeys(r.references), siteKeys(expected));
    for (const ref of r.references) {
      const text = await readText(fx.dir, ref.relative_path);
      const line = lineText(text, ref.line).trim();
      const holder = ref.snippet.split("\n").find((l) => l.includes(line));
      assert.ok(
        holder?.trimStart().startsWith(`${ref.line}: `),
        `line number ${ref.line} prefixes "${holder}"`,
      );
      assert.ok(ref.snippet.trimEnd().split("\n").length <= 3, ref.snippet);
    }
  });

  it("the unrelated method's references are exactly its own", async () => {
    const r = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
      name_path: "Thermometer/multiplyByRate",
      relative_path: "src/unrelated.ts",
    });
    assert.equal(r.complete, true);
    const report = await readText(fx.dir, "src/report.ts");
    const unrelated = await readText(fx.dir, "src/unrelated.ts");
    const want = [
      ...sitesOn(report, "warmer = t.multiplyByRate(2)", "multiplyByRate").map((p) => ({
        relative_path: "src/report.ts",
        ...p,
      })),
      ...sitesOn(unrelated, "t.multiplyByRate(1.2)", "multiplyByRate").map((p) => ({
        relative_path: "src/unrelated.ts",
        ...p,
      })),
    ];
    assert.deepEqual(siteKeys(r.references), siteKeys(want));
  });

  it("Money.add's references exclude Wallet.add (same name, other class)", async () => {
    const r = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
      name_path: "Money/add",
      relative_path: "src/money.ts",
    });
    assert.equal(r.complete, true);
    assert.deepEqual(r.references, [], "nobody calls Money.add; `new Wallet().add(...)` is Wallet's");
  });

  it("references of a namespace function, an enum member and an overload set's implementation", async () => {
    const clamp = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
      name_path: "MathUtil/clamp",
      relative_path: "src/util.ts",
    });
    assert.equal(clamp.complete, true);
    assert.deepEqual(
      clamp.references.map((r) => `${r.relative_path} ${r.containing_symbol?.name_path}`).sort(),
      ["src/main.ts main", "src/report.ts buildReport"],
    );
    const red = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
      name_path: "Color/Red",
      relative_path: "src/colors.ts",
    });
    assert.equal(red.complete, true);
    assert.deepEqual(
      red.references.map((r) => `${r.relative_path} ${r.containing_symbol?.name_path}`).sort(),
      ["src/colors.ts colorName", "src/main.ts main"],
    );
  });

  it("references into and out of the BOM file with non-ASCII identifiers", async () => {
    const r = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
      name_path: "größe",
      relative_path: "src/unicode.ts",
    });
    assert.equal(r.complete, true);
    const unicode = await readText(fx.dir, "src/unicode.ts");
    const main = await readText(fx.dir, "src/main.ts");
    assert.deepEqual(
      r.references
        .map((x) => `${x.relative_path}:${x.line} ${x.containing_symbol?.name_path ?? "null"}`)
        .sort(),
      [
        `src/main.ts:${lineOf(main, "import { café, größe")} null`,
        // biome-ignore lint/suspicious/noTemplateCurlyInString: this is fixture source text, not a template
        `src/main.ts:${lineOf(main, "${größe(2)}")} main`,
        `src/unicode.ts:${lineOf(unicode, "return größe(3);")} Straße/länge`,
      ].sort(),
    );
  });

  it("a reference in top-level code (an import) has containing_symbol: null, not a missing field", async () => {
    const r = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
      name_path: "größe",
      relative_path: "src/unicode.ts",
    });
    const main = await readText(fx.dir, "src/main.ts");
    const imp = r.references.find(
      (x) => x.relative_path === "src/main.ts" && x.line === lineOf(main, "import { café"),
    );
    assert.ok(imp, JSON.stringify(r.references));
    assert.ok("containing_symbol" in imp, `containing_symbol is present: ${JSON.stringify(imp)}`);
    assert.equal(imp.containing_symbol, null);
    // It only names the symbol: marked, not quoted (the text counts it per file).
    assert.equal((imp as { import?: true }).import, true);
    assert.equal((imp as { snippet?: string }).snippet, undefined);
  });

  it("references in the CRLF file have the right lines", async () => {
    const r = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
      name_path: "CrlfBox/describe",
      relative_path: "src/crlf.ts",
    });
    assert.equal(r.complete, true);
    const main = await readText(fx.dir, "src/main.ts");
    assert.deepEqual(
      r.references.map((x) => `${x.relative_path}:${x.line}`),
      [`src/main.ts:${lineOf(main, "box.describe()")}`],
    );
  });

  it("no result contained the host path of the project", () => {
    assert.deepEqual(h.hostPathLeaks, []);
  });
});
