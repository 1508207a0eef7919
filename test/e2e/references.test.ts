// @backends tsserver native
// @via daemon
/**
 * find_referencing_symbols on ts-basic over the built CLI: every type-precise call site of
 * Money.multiplyByRate (inferred receivers, chains, array elements, await, callbacks, property
 * initialisers, top-level constants, an exported arrow function) with its containing symbol and a
 * snippet, none of Thermometer's same-named method, `complete: true`.
 */

import { strict as assert } from "node:assert";
import { after, before, describe, it } from "node:test";
import { maxSiteLine, siteLine } from "../../src/references/sites.js";
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
import {
  callOk,
  filesOf,
  type ReferencesResult,
  type ScalpelHandle,
  sitesOf,
  startScalpel,
} from "../helpers/mcp.js";

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
    assert.match(result.symbol, /^Money\/multiplyByRate \[Method\] src\/money\.ts:\d+-\d+$/);
  });

  it("returns exactly the type-precise call sites (file, line; column where a line holds two)", () => {
    assert.deepEqual(siteKeys(sitesOf(result)), siteKeys(expected));
  });

  it("says each file and container once: no site repeats a field of its parent", () => {
    const json = JSON.stringify(result.files);
    // Each file's path once, at the head of its entry; each line of sites one line of its own.
    for (const f of result.files) {
      const [head, ...sites] = f.split("\n");
      assert.equal(json.split(`"${head!.split(" ")[0]}`).length - 1, 1, head);
      for (const site of sites) assert.match(site, /^\d+(:\d+(,\d+)*)? {2}/, site);
    }
    assert.equal(json.split("src/wallet.ts").length - 1, 1, "one entry for wallet.ts's four sites");
    const wallet = filesOf(result).find((f) => f.relative_path === "src/wallet.ts")!;
    const chain = wallet.sites.filter((x) => x.column !== undefined);
    assert.equal(chain.length, 2, "the two calls of the chain on one line carry their columns");
    const line = chain[0]!.line;
    assert.equal(
      result.files
        .join("\n")
        .split("\n")
        .filter((l) => l.startsWith(`${line}:`)).length,
      1,
      "the chain's line is quoted once, with both columns",
    );
  });

  it("contains none of the same-named unrelated methods' calls", async () => {
    const others = new Set(siteKeys(await otherRateSites(fx.dir)));
    const wrong = siteKeys(sitesOf(result)).filter((k) => others.has(k));
    assert.deepEqual(wrong, []);
    assert.ok(!filesOf(result).some((f) => f.relative_path === "src/unrelated.ts"));
  });

  it("does not count the declaration as a reference", async () => {
    const money = await readText(fx.dir, "src/money.ts");
    const declLine = lineOf(money, "multiplyByRate(rate: number): Money {");
    assert.ok(!sitesOf(result).some((r) => r.relative_path === "src/money.ts" && r.line === declLine));
  });

  it("attributes each site to its innermost named declaration (callbacks and locals belong to the function)", () => {
    const got = sitesOf(result)
      .map((r) => `${r.relative_path}:${r.line} ${r.container ?? "null"}`)
      .sort();
    const want = expected.map((s) => `${s.relative_path}:${s.line} ${s.containing}`).sort();
    assert.deepEqual(got, want);
  });

  it("include_kinds filters by the container's kind (a method, a property)", async () => {
    const only = async (kind: string) =>
      sitesOf(
        await callOk<ReferencesResult>(h, "find_referencing_symbols", {
          name_path: "Money/multiplyByRate",
          relative_path: "src/money.ts",
          include_kinds: [kind],
        }),
      ).map((r) => r.container);
    const methods = await only("Method");
    assert.ok(methods.includes("Wallet/scaledAll") && !methods.includes("Ledger/base"), `${methods}`);
    const properties = await only("Property");
    assert.ok(
      properties.includes("Ledger/base") && !properties.includes("Wallet/scaledAll"),
      `${properties}`,
    );
  });

  it("each reference's snippet is its own line, trimmed (context_lines defaults to 0)", async () => {
    const columns = new Map(expected.map((e) => [`${e.relative_path}:${e.line}`, e.column]));
    for (const r of sitesOf(result)) {
      const text = await readText(fx.dir, r.relative_path);
      const line = lineText(text, r.line);
      const column = r.column ?? columns.get(`${r.relative_path}:${r.line}`)!;
      assert.equal(r.code, siteLine(line, column - 1), `${r.relative_path}:${r.line}`);
      // Cut only past maxSiteLine characters, and never so that the site itself is lost.
      if (line.trim().length <= maxSiteLine) assert.equal(r.code, line.trim());
      else assert.ok(r.code!.length <= maxSiteLine && r.code!.includes("multiplyByRate"), r.code);
    }
  });

  it("context_lines: 1 gives numbered snippets of at most three lines around the site", async () => {
    const r = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
      name_path: "Money/multiplyByRate",
      relative_path: "src/money.ts",
      context_lines: 1,
    });
    assert.deepEqual(siteKeys(sitesOf(r)), siteKeys(expected));
    for (const ref of sitesOf(r)) {
      const text = await readText(fx.dir, ref.relative_path);
      const line = lineText(text, ref.line).trim();
      const holder = ref.code!.split("\n").find((l) => l.includes(line));
      assert.ok(
        holder?.trimStart().startsWith(`${ref.line}: `),
        `line number ${ref.line} prefixes "${holder}"`,
      );
      assert.ok(ref.code!.trimEnd().split("\n").length <= 3, ref.code);
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
    assert.deepEqual(siteKeys(sitesOf(r)), siteKeys(want));
  });

  it("Money.add's references exclude Wallet.add (same name, other class)", async () => {
    const r = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
      name_path: "Money/add",
      relative_path: "src/money.ts",
    });
    assert.equal(r.complete, true);
    assert.deepEqual(r.files, [], "nobody calls Money.add; `new Wallet().add(...)` is Wallet's");
  });

  it("references of a namespace function, an enum member and an overload set's implementation", async () => {
    const clamp = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
      name_path: "MathUtil/clamp",
      relative_path: "src/util.ts",
    });
    assert.equal(clamp.complete, true);
    assert.deepEqual(
      sitesOf(clamp)
        .map((r) => `${r.relative_path} ${r.container}`)
        .sort(),
      ["src/main.ts main", "src/report.ts buildReport"],
    );
    const red = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
      name_path: "Color/Red",
      relative_path: "src/colors.ts",
    });
    assert.equal(red.complete, true);
    assert.deepEqual(
      sitesOf(red)
        .map((r) => `${r.relative_path} ${r.container}`)
        .sort(),
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
      sitesOf(r)
        .map((x) => `${x.relative_path}:${x.line} ${x.container ?? "null"}`)
        .sort(),
      [
        `src/main.ts:${lineOf(main, "import { café, größe")} null`,
        // biome-ignore lint/suspicious/noTemplateCurlyInString: this is fixture source text, not a template
        `src/main.ts:${lineOf(main, "${größe(2)}")} main`,
        `src/unicode.ts:${lineOf(unicode, "return größe(3);")} Straße/länge`,
      ].sort(),
    );
  });

  it("an import site is a line in its file's imports, not quoted; top-level code has container null", async () => {
    const r = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
      name_path: "größe",
      relative_path: "src/unicode.ts",
    });
    const main = await readText(fx.dir, "src/main.ts");
    const file = filesOf(r).find((f) => f.relative_path === "src/main.ts");
    assert.ok(file, JSON.stringify(r.files));
    assert.deepEqual(file.imports, [lineOf(main, "import { café")]);
    assert.ok(!JSON.stringify(r.files).includes("import {"), "the import statement is not quoted");
    const red = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
      name_path: "Color/Red",
      relative_path: "src/colors.ts",
    });
    // Every site names its container, "(top level)" for code in no symbol.
    for (const f of [...r.files, ...red.files])
      for (const site of f.split("\n").slice(1)) assert.match(site, /^\d+(:\d+)? {2}\S/, site);
  });

  it("references in the CRLF file have the right lines", async () => {
    const r = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
      name_path: "CrlfBox/describe",
      relative_path: "src/crlf.ts",
    });
    assert.equal(r.complete, true);
    const main = await readText(fx.dir, "src/main.ts");
    assert.deepEqual(
      sitesOf(r).map((x) => `${x.relative_path}:${x.line}`),
      [`src/main.ts:${lineOf(main, "box.describe()")}`],
    );
  });

  it("no result contained the host path of the project", () => {
    assert.deepEqual(h.hostPathLeaks, []);
  });
});
