// @backends tsserver native
/**
 * Symbol tools on ts-basic over the built CLI: overviews, find_symbol with name paths (overloads,
 * namespace, enum, arrow function, CRLF and BOM files, non-ASCII identifiers), find_implementations
 * and find_declaration (type-precise: Money's method vs Thermometer's), and the errors for
 * ambiguous and unknown name paths.
 */
import { strict as assert } from "node:assert";
import { after, before, describe, it } from "node:test";
import { lineOf } from "../helpers/anchors.js";
import { readText, type TempProject } from "../helpers/fixtures.js";
import {
  callOk,
  type FindSymbolResult,
  flatten,
  type OutlineFile,
  type OverviewFile,
  outlineSymbols,
  overviewFiles,
  type ScalpelHandle,
  type Sym,
  serveFixture,
  stopServing,
} from "../helpers/mcp.js";

describe("symbols (e2e, typescript-language-server)", () => {
  let fx: TempProject;
  let h: ScalpelHandle;

  before(async () => {
    ({ fx, h } = await serveFixture("ts-basic"));
  });

  after(() => stopServing(h, fx));

  const find = (args: Record<string, unknown>) => callOk<FindSymbolResult>(h, "find_symbol", args);
  const one = async (args: Record<string, unknown>): Promise<Sym> => {
    const r = await find(args);
    assert.equal(r.complete, true, "find_symbol must be complete");
    assert.equal(
      r.symbols.length,
      1,
      `expected exactly one symbol for ${JSON.stringify(args)}, got ${JSON.stringify(r.symbols)}`,
    );
    return r.symbols[0]!;
  };

  it("get_symbols_overview lists a file's top-level symbols and, with depth, their members", async () => {
    const text = await readText(fx.dir, "src/money.ts");
    const r = await callOk<{ files: Array<{ relative_path: string; symbols: Sym[] }>; complete: boolean }>(
      h,
      "get_symbols_overview",
      { relative_path: "src/money.ts", depth: 1 },
    );
    assert.equal(r.complete, true);
    assert.equal(r.files.length, 1);
    const file = r.files[0]!;
    assert.equal(file.relative_path, "src/money.ts");
    assert.deepEqual(file.symbols.map((s) => s.name_path).sort(), ["Money", "makeMoney", "makeMonies"]);
    // Nothing the file entry or the parent already says: no name beside name_path, no path per symbol.
    for (const s of flatten(file.symbols)) {
      assert.ok(!("name" in s) && !("relative_path" in s), JSON.stringify(s).slice(0, 200));
    }
    const money = file.symbols.find((s) => s.name_path === "Money")!;
    assert.equal(money.kind, "Class");
    assert.equal(money.start_line, lineOf(text, "export class Money"));
    const members = (money.children ?? []).map((c) => c.name_path.replace(/^Money\//, "")).sort();
    for (const m of ["add", "double", "multiplyByRate"])
      assert.ok(members.includes(m), `Money has ${m}: ${members}`);
    const rate = money.children!.find((c) => c.name_path === "Money/multiplyByRate")!;
    assert.equal(rate.kind, "Method");
    assert.equal(rate.name_path, "Money/multiplyByRate");
    assert.equal(rate.start_line, lineOf(text, "multiplyByRate(rate: number): Money {"));
    assert.equal(rate.end_line, rate.start_line + 2);
    const make = file.symbols.find((s) => s.name_path === "makeMoney")!;
    assert.equal(make.kind, "Function");
    assert.equal(make.start_line, lineOf(text, "export function makeMoney"));
  });

  it("overviews skip anonymous callbacks at every depth", async () => {
    const r = await callOk<{ files: Array<{ relative_path: string; symbols: Sym[] }> }>(
      h,
      "get_symbols_overview",
      {
        relative_path: "src/wallet.ts",
        depth: 5,
      },
    );
    const all = flatten(r.files.flatMap((f) => f.symbols));
    const names = all.map((s) => s.name_path);
    assert.ok(names.includes("Wallet/scaledAll"), names.join(", "));
    const callbacks = all.filter((s) => /callback|=>|<function>|anonymous/i.test(s.name_path));
    assert.deepEqual(callbacks, [], "anonymous callbacks are not symbols");
  });

  it("get_symbols_overview on a directory covers its files", async () => {
    // A directory at depth 0: each file's top level as outline lines, no Symbol objects.
    const r = await callOk<{ files: OverviewFile[]; complete: boolean }>(h, "get_symbols_overview", {
      relative_path: "src",
    });
    assert.ok(
      r.files.every((f) => typeof f === "string"),
      "no Symbol objects next to an outline",
    );
    const files = overviewFiles(r.files);
    const paths = files.map((f) => f.relative_path).sort();
    for (const p of ["src/money.ts", "src/wallet.ts", "src/crlf.ts", "src/unicode.ts", "src/util.ts"]) {
      assert.ok(paths.includes(p), `${p} in ${paths}`);
    }
    const unicode = files.find((f) => f.relative_path === "src/unicode.ts")!;
    const names = unicode.symbols.map((s) => s.name_path);
    for (const n of ["café", "größe", "Straße"]) assert.ok(names.includes(n), `${n} in ${names}`);
  });

  it("find_symbol resolves a method by name path, with its body", async () => {
    const text = await readText(fx.dir, "src/money.ts");
    const s = await one({ name_path_pattern: "Money/multiplyByRate", include_body: true });
    assert.equal(s.relative_path, "src/money.ts");
    assert.equal(s.kind, "Method");
    assert.equal(s.start_line, lineOf(text, "multiplyByRate(rate: number): Money {"));
    assert.ok(s.body?.includes("return new Money(this.amount * rate, this.currency);"), `body: ${s.body}`);
    assert.ok(s.body?.trimStart().startsWith("multiplyByRate(rate: number): Money {"), `body: ${s.body}`);
  });

  it("a bare name matches both same-named methods; the class-qualified one only its own", async () => {
    const r = await find({ name_path_pattern: "multiplyByRate" });
    const paths = r.symbols.map((s) => `${s.relative_path}#${s.name_path}`);
    assert.ok(paths.includes("src/money.ts#Money/multiplyByRate"), paths.join(", "));
    assert.ok(paths.includes("src/unrelated.ts#Thermometer/multiplyByRate"), paths.join(", "));
    const t = await one({ name_path_pattern: "Thermometer/multiplyByRate" });
    assert.equal(t.relative_path, "src/unrelated.ts");
    const abs = await one({ name_path_pattern: "/Money/multiplyByRate" });
    assert.equal(abs.relative_path, "src/money.ts");
    const none = await find({ name_path_pattern: "/multiplyByRate" });
    assert.deepEqual(none.symbols, [], "an absolute pattern must start at the top level");
    assert.equal(none.complete, true);
  });

  it("overloads are numbered in document order", async () => {
    const text = await readText(fx.dir, "src/parse.ts");
    const r = await find({ name_path_pattern: "parse", relative_path: "src/parse.ts" });
    assert.deepEqual(
      r.symbols.map((s) => [s.name_path, s.start_line]),
      [
        ["parse[0]", lineOf(text, "export function parse(x: string): number;")],
        ["parse[1]", lineOf(text, "export function parse(x: number): string;")],
        ["parse[2]", lineOf(text, "export function parse(x: string | number)")],
      ],
    );
    const second = await one({ name_path_pattern: "parse[1]", relative_path: "src/parse.ts" });
    assert.equal(second.start_line, lineOf(text, "export function parse(x: number): string;"));
  });

  it("namespace, its function, enum and members, exported arrow function, interface", async () => {
    const util = await readText(fx.dir, "src/util.ts");
    const ns = await one({ name_path_pattern: "MathUtil" });
    // tsserver reports `namespace X` as SymbolKind.Module; the contract passes LSP kind names through
    assert.ok(["Namespace", "Module"].includes(ns.kind), ns.kind);
    assert.equal(ns.start_line, lineOf(util, "export namespace MathUtil"));
    const clamp = await one({ name_path_pattern: "MathUtil/clamp" });
    assert.equal(clamp.kind, "Function");
    assert.equal(clamp.relative_path, "src/util.ts");
    assert.equal(clamp.start_line, lineOf(util, "export function clamp"));

    const colors = await readText(fx.dir, "src/colors.ts");
    const color = await one({ name_path_pattern: "Color", depth: 1 });
    assert.equal(color.kind, "Enum");
    assert.equal(color.start_line, lineOf(colors, "export enum Color"));
    assert.deepEqual((color.children ?? []).map((c) => c.name_path).sort(), [
      "Color/Blue",
      "Color/Green",
      "Color/Red",
    ]);
    assert.ok(!color.children!.some((c) => "relative_path" in c), "a child has its parent's file");
    // typescript-language-server 5.3 maps tsserver's "enum member" to SymbolKind.Constant
    // (symbolKindsMapping in its lib/cli.mjs); the contract passes LSP kind names through
    assert.ok(
      (color.children ?? []).every((c) => c.kind === "EnumMember" || c.kind === "Constant"),
      JSON.stringify(color.children),
    );

    const format = await readText(fx.dir, "src/format.ts");
    const arrow = await one({ name_path_pattern: "formatMoney" });
    assert.equal(arrow.relative_path, "src/format.ts");
    assert.equal(arrow.start_line, lineOf(format, "export const formatMoney"));
    assert.ok(["Function", "Variable", "Constant"].includes(arrow.kind), arrow.kind);

    const shape = await one({ name_path_pattern: "Shape", include_kinds: ["Interface"] });
    assert.equal(shape.relative_path, "src/shapes.ts");
  });

  it("include_kinds / exclude_kinds filter by LSP kind name", async () => {
    const classes = await find({ name_path_pattern: "multiplyByRate", include_kinds: ["Class"] });
    assert.deepEqual(classes.symbols, []);
    const noMethods = await find({ name_path_pattern: "Money", exclude_kinds: ["Method", "Function"] });
    assert.ok(noMethods.symbols.some((s) => s.name_path === "Money" && s.kind === "Class"));
  });

  it("substring_matching applies to the last segment", async () => {
    const r = await find({ name_path_pattern: "Money/multiply", substring_matching: true });
    assert.deepEqual(
      r.symbols.map((s) => s.name_path),
      ["Money/multiplyByRate"],
    );
  });

  it("CRLF file: lines are right", async () => {
    const text = await readText(fx.dir, "src/crlf.ts");
    const s = await one({ name_path_pattern: "CrlfBox/describe", include_body: true });
    assert.equal(s.relative_path, "src/crlf.ts");
    assert.equal(s.start_line, lineOf(text, "describe(): string {"));
    assert.equal(s.end_line, s.start_line + 2);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: this is fixture source text, not a template
    assert.ok(s.body?.includes("return `box ${this.label}`;"), s.body);
  });

  it("BOM file with non-ASCII identifiers", async () => {
    const text = await readText(fx.dir, "src/unicode.ts");
    const g = await one({ name_path_pattern: "größe", include_body: true });
    assert.equal(g.relative_path, "src/unicode.ts");
    assert.equal(g.kind, "Function");
    assert.equal(g.start_line, lineOf(text, "export function größe"));
    assert.ok(g.body?.includes("return wert * 2;"), g.body);
    assert.ok(!g.body?.includes("\uFEFF"), "the BOM is not part of a body");
    const l = await one({ name_path_pattern: "Straße/länge" });
    assert.equal(l.kind, "Method");
    assert.equal(l.start_line, lineOf(text, "länge(): number {"));
    const cafe = await one({ name_path_pattern: "café" });
    assert.equal(cafe.start_line, 1);
  });

  it("find_implementations: the interface's two classes, and its method's two implementations", async () => {
    const r = await callOk<{ symbol: string; implementations: OutlineFile[]; complete: boolean }>(
      h,
      "find_implementations",
      {
        name_path: "Shape",
        relative_path: "src/shapes.ts",
      },
    );
    assert.equal(r.complete, true);
    assert.match(r.symbol, /^Shape \[Interface\] src\/shapes\.ts:\d+-\d+$/);
    assert.deepEqual(
      outlineSymbols(r.implementations)
        .map((s) => `${s.relative_path}#${s.name_path}`)
        .sort(),
      ["src/shapes.ts#Circle", "src/shapes.ts#Square"],
    );
    const m = await callOk<{ implementations: OutlineFile[]; complete: boolean }>(h, "find_implementations", {
      name_path: "Shape/area",
      relative_path: "src/shapes.ts",
    });
    assert.equal(m.complete, true);
    assert.deepEqual(
      outlineSymbols(m.implementations)
        .map((s) => s.name_path)
        .sort(),
      ["Circle/area", "Square/area"],
    );
  });

  it("find_declaration follows the receiver's type", async () => {
    const report = await readText(fx.dir, "src/report.ts");
    const decl = (line: number, identifier: string, occurrence?: number) =>
      callOk<{ declaration: Sym | null; complete: boolean }>(h, "find_declaration", {
        relative_path: "src/report.ts",
        line,
        identifier,
        ...(occurrence === undefined ? {} : { occurrence }),
      });
    const thermo = await decl(lineOf(report, "warmer = t.multiplyByRate(2)"), "multiplyByRate");
    assert.equal(thermo.complete, true);
    assert.equal(thermo.declaration?.name_path, "Thermometer/multiplyByRate");
    assert.equal(thermo.declaration?.relative_path, "src/unrelated.ts");
    const money = await decl(lineOf(report, "walletTotal().multiplyByRate("), "multiplyByRate");
    assert.equal(money.declaration?.name_path, "Money/multiplyByRate");
    assert.equal(money.declaration?.relative_path, "src/money.ts");
    const clamp = await decl(lineOf(report, "walletTotal().multiplyByRate("), "clamp");
    assert.equal(clamp.declaration?.name_path, "MathUtil/clamp");

    const wallet = await readText(fx.dir, "src/wallet.ts");
    const second = await callOk<{ declaration: Sym | null }>(h, "find_declaration", {
      relative_path: "src/wallet.ts",
      line: lineOf(wallet, "m.multiplyByRate(2).multiplyByRate(3)"),
      identifier: "multiplyByRate",
      occurrence: 2,
    });
    assert.equal(second.declaration?.name_path, "Money/multiplyByRate");
  });

  it("ambiguous and unknown name paths are error results that say what to do", async () => {
    // Three methods named area in three different parents: ambiguous.
    const amb = await h.call("find_referencing_symbols", {
      name_path: "area",
      relative_path: "src/shapes.ts",
    });
    assert.equal(amb.isError, true, `ambiguous name path must fail: ${amb.text}`);
    assert.match(amb.text, /ambiguous_symbol/);
    assert.match(amb.text, /Circle\/area/, "the message lists the candidates");
    assert.match(amb.text, /Square\/area/);
    // Overload signatures and their implementation are one function: a bare name that matches only
    // them is not ambiguous to the tools that ask about the symbol — but is to one that edits a
    // single declaration's text.
    const overloads = await h.call("replace_symbol_body", {
      name_path: "parse",
      relative_path: "src/parse.ts",
      body: "export function parse(x: string | number): number | string {\n  return x;\n}",
      dry_run: true,
    });
    assert.equal(overloads.isError, true, overloads.text);
    assert.match(
      overloads.text,
      /parse\[0\][\s\S]*parse\[1\]/,
      "an edit still names the overloads to pick from",
    );
    const missing = await h.call("find_referencing_symbols", {
      name_path: "Money/noSuchMethod",
      relative_path: "src/money.ts",
    });
    assert.equal(missing.isError, true, missing.text);
    assert.match(missing.text, /noSuchMethod/);
    const typo = await h.call("find_referencing_symbols", {
      name_path: "Money/multiplyByRtae",
      relative_path: "src/money.ts",
    });
    assert.equal(typo.isError, true, typo.text);
    assert.match(typo.text, /symbol_not_found/);
    assert.match(typo.text, /Close matches: [^.]*Money\/multiplyByRate/, "a misspelling gets a suggestion");
    const noFile = await h.call("get_symbols_overview", { relative_path: "src/nope.ts" });
    assert.equal(noFile.isError, true, noFile.text);
  });

  it("no result contained the host path of the project", () => {
    assert.deepEqual(h.hostPathLeaks, []);
  });
});
