/**
 * The Rust tools end to end over the built CLI against a real rust-analyzer, on a cargo package
 * (test/fixtures/rust-basic): a method called through type-inferred receivers in two modules, a
 * same-named method on another struct, a trait with two implementations.
 *
 * Timings measured here (rust-analyzer 0.0.340, cache priming off, 2 cores, warm disk cache):
 * quiescent 0.8–1.5 s after start; the first references call 2.5–3 s (lazy analysis); a type
 * error is pulled ~10 ms after the change, `cargo check` (runs on save) adds its own ~0.3 s later.
 */
import { strict as assert } from "node:assert";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { lineOf, sitesOn } from "../helpers/anchors.js";
import { cargoCheck, copyFixture, readText, type TempProject } from "../helpers/fixtures.js";
import {
  callOk,
  type Diagnostic,
  type EditResult,
  editedFiles,
  type FindSymbolResult,
  filesOf,
  flatten,
  type OutlineFile,
  type OverviewFile,
  outlineSymbols,
  type ReferencesResult,
  type ScalpelHandle,
  type Sym,
  sitesOf,
  startScalpel,
} from "../helpers/mcp.js";
import { rustAnalyzerMissing } from "../helpers/servers.js";

const skip = rustAnalyzerMissing();
if (skip) process.stdout.write(`# SKIP rust e2e: ${skip}\n`);

describe("Rust (e2e, rust-analyzer)", { skip: skip ?? false }, () => {
  let fx: TempProject;
  let h: ScalpelHandle;

  before(async () => {
    fx = await copyFixture("rust-basic");
    h = await startScalpel({ project: fx.dir, env: { CARGO_TARGET_DIR: join(fx.dir, "target") } });
  });

  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  it("find_symbol addresses methods of impl blocks as Type/method, impl header in detail", async () => {
    const r = await callOk<FindSymbolResult>(h, "find_symbol", {
      name_path_pattern: "Money/multiply_by_rate",
      relative_path: "src/money.rs",
    });
    assert.equal(r.complete, true);
    assert.deepEqual(
      r.symbols.map((s) => `${s.relative_path} ${s.name_path} ${s.kind}`),
      ["src/money.rs Money/multiply_by_rate Method"],
    );
    assert.match(r.symbols[0]?.detail ?? "", /^impl Money · fn\(&self, rate: f64\) -> Money$/);
    const text = await readText(fx.dir, "src/money.rs");
    assert.equal(r.symbols[0]?.start_line, lineOf(text, "pub fn multiply_by_rate"));

    const fmt = await callOk<FindSymbolResult>(h, "find_symbol", {
      name_path_pattern: "Money/fmt",
      relative_path: "src",
    });
    assert.deepEqual(
      fmt.symbols.map((s) => s.name_path),
      ["Money/fmt"],
      "a trait impl's method is addressed under the type too",
    );
    assert.match(fmt.symbols[0]?.detail ?? "", /^impl fmt::Display for Money · /);

    // The contract's form, with the impl header as the segment, names the same symbol.
    const viaHeader = await callOk<FindSymbolResult>(h, "find_symbol", {
      name_path_pattern: "impl Priced for Service/price",
      relative_path: "src",
    });
    assert.deepEqual(
      viaHeader.symbols.map((s) => `${s.relative_path} ${s.name_path}`),
      ["src/pricing.rs Service/price"],
    );

    const all = await callOk<FindSymbolResult>(h, "find_symbol", {
      name_path_pattern: "multiply_by_rate",
      relative_path: "src",
    });
    assert.deepEqual(all.symbols.map((s) => `${s.relative_path} ${s.name_path}`).sort(), [
      "src/money.rs Money/multiply_by_rate",
      "src/thermo.rs Thermometer/multiply_by_rate",
    ]);
  });

  it("the type's overview lists fields and the methods of all its impl blocks", async () => {
    const r = await callOk<FindSymbolResult>(h, "find_symbol", {
      name_path_pattern: "/Money",
      relative_path: "src/money.rs",
      depth: 1,
    });
    assert.equal(r.symbols.length, 1);
    assert.deepEqual(
      (r.symbols[0]?.children ?? []).map((c: Sym) => c.name_path),
      ["Money/cents", "Money/new", "Money/multiply_by_rate", "Money/add", "Money/fmt"],
    );
  });

  it("a directory's overview keeps Symbol objects for files whose symbols carry details (signatures)", async () => {
    const r = await callOk<{ files: OverviewFile[] }>(h, "get_symbols_overview", { relative_path: "src" });
    // An outline line has no room for a detail: a file is outlined only when none of its symbols has one.
    for (const f of r.files) {
      if (typeof f !== "string")
        assert.ok(
          f.symbols.some((s) => s.detail !== undefined),
          JSON.stringify(f),
        );
    }
    // report.rs declares `pub fn build_report(total: &Money) -> String`: its signature is kept.
    const report = r.files.find((f) => typeof f !== "string" && f.relative_path === "src/report.rs");
    const fn =
      typeof report === "object" ? report.symbols.find((x) => x.name_path === "build_report") : undefined;
    assert.match(fn?.detail ?? "", /Money/, JSON.stringify(report));
    // money.rs holds only the struct (its impl blocks are members): no detail, an outline.
    assert.ok(r.files.includes("src/money.rs\nMoney [Struct] 3-7"), JSON.stringify(r.files));
  });

  it("find_referencing_symbols gives exactly the type-precise sites with containing symbols", async () => {
    const r = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
      name_path: "Money/multiply_by_rate",
      relative_path: "src/money.rs",
    });
    assert.equal(r.complete, true, r.incomplete_reason);
    const main = await readText(fx.dir, "src/main.rs");
    const report = await readText(fx.dir, "src/report.rs");
    const pricing = await readText(fx.dir, "src/pricing.rs");
    const want = [
      ...sitesOn(main, "base.multiply_by_rate(2.0)", "multiply_by_rate").map(
        (p) => `src/main.rs:${p.line} main`,
      ),
      ...sitesOn(report, "total.multiply_by_rate(1.2)", "multiply_by_rate").map(
        (p) => `src/report.rs:${p.line} build_report`,
      ),
      ...sitesOn(pricing, "hourly.multiply_by_rate(", "multiply_by_rate").map(
        (p) => `src/pricing.rs:${p.line} Service/price`,
      ),
    ].sort();
    const got = sitesOf(r)
      .map(
        (x) =>
          `${x.relative_path}:${x.line}${x.column === undefined ? "" : `:${x.column}`} ${x.container ?? "null"}`,
      )
      .sort();
    assert.deepEqual(got, want);
    assert.ok(
      !filesOf(r).some((x) => x.relative_path === "src/thermo.rs"),
      "Thermometer's calls are not Money's",
    );
    const methods = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
      name_path: "Money/multiply_by_rate",
      relative_path: "src/money.rs",
      include_kinds: ["Method"],
    });
    assert.deepEqual(
      filesOf(methods).map((f) => f.relative_path),
      ["src/pricing.rs"],
      "Service/price is a Method; main and build_report are Functions",
    );

    const thermo = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
      name_path: "Thermometer/multiply_by_rate",
      relative_path: "src/thermo.rs",
    });
    assert.deepEqual(
      sitesOf(thermo).map((x) => `${x.relative_path} ${x.container}`),
      ["src/thermo.rs warm_up"],
    );
    assert.deepEqual(h.hostPathLeaks, []);
  });

  it("find_implementations lists both implementations of the trait and of its method", async () => {
    const t = await callOk<{ implementations: OutlineFile[]; complete: boolean }>(h, "find_implementations", {
      name_path: "Priced",
      relative_path: "src/pricing.rs",
    });
    assert.equal(t.complete, true);
    assert.deepEqual(
      outlineSymbols(t.implementations)
        .map((s) => `${s.relative_path} ${s.name_path}`)
        .sort(),
      ["src/pricing.rs Item", "src/pricing.rs Service"],
    );
    const m = await callOk<{ implementations: OutlineFile[] }>(h, "find_implementations", {
      name_path: "Priced/price",
      relative_path: "src/pricing.rs",
    });
    assert.deepEqual(
      outlineSymbols(m.implementations)
        .map((s) => `${s.name_path} ${s.kind}`)
        .sort(),
      ["Item/price Method", "Service/price Method"],
    );
  });

  it("get_diagnostics_for_file reports an introduced type error (and none before)", async () => {
    const clean = await callOk<{ diagnostics: Diagnostic[]; complete: boolean }>(
      h,
      "get_diagnostics_for_file",
      {
        relative_path: "src/report.rs",
      },
    );
    assert.equal(clean.complete, true);
    assert.deepEqual(clean.diagnostics, []);
    const original = await readText(fx.dir, "src/report.rs");
    const broken = original.replace("let taxed = total", "let taxed: i32 = total");
    await writeFile(join(fx.dir, "src/report.rs"), broken);
    const r = await callOk<{ diagnostics: Diagnostic[]; complete: boolean; incomplete_reason?: string }>(
      h,
      "get_diagnostics_for_file",
      { relative_path: "src/report.rs" },
    );
    assert.equal(r.complete, true, r.incomplete_reason);
    const line = lineOf(broken, "let taxed: i32");
    const errors = r.diagnostics.filter((d) => d.severity === "error" && d.line === line);
    assert.ok(errors.length > 0, JSON.stringify(r.diagnostics));
    assert.ok(errors.every((d) => d.symbol === "build_report"));
    // Both sources: rust-analyzer's own (pulled) and cargo check's rustc error (pushed after save).
    assert.deepEqual([...new Set(errors.map((d) => d.source))].sort(), ["rust-analyzer", "rustc"]);
    assert.ok(errors.every((d) => String(d.code) === "E0308"));
    await writeFile(join(fx.dir, "src/report.rs"), original);
    const fixed = await callOk<{ diagnostics: Diagnostic[]; complete: boolean }>(
      h,
      "get_diagnostics_for_file",
      {
        relative_path: "src/report.rs",
      },
    );
    assert.equal(fixed.complete, true);
    assert.deepEqual(fixed.diagnostics, []);
  });

  it("replace_symbol_body replaces one method of an impl block", async () => {
    const r = await callOk<EditResult>(h, "replace_symbol_body", {
      name_path: "Money/add",
      relative_path: "src/money.rs",
      body: "pub fn add(&self, other: &Money) -> Money {\n    Money::new(other.cents + self.cents)\n}",
    });
    assert.equal(r.applied, true);
    const text = await readText(fx.dir, "src/money.rs");
    assert.ok(
      text.includes(
        "    pub fn add(&self, other: &Money) -> Money {\n        Money::new(other.cents + self.cents)\n    }\n",
      ),
      text,
    );
    assert.ok(text.includes("pub fn multiply_by_rate"), "neighbours untouched");
    const check = cargoCheck(fx.dir);
    assert.equal(check.status, 0, check.output);
  });

  it("rename_symbol renames Money::multiply_by_rate everywhere, not Thermometer's; cargo check passes", async () => {
    const r = await callOk<EditResult>(h, "rename_symbol", {
      name_path: "Money/multiply_by_rate",
      relative_path: "src/money.rs",
      new_name: "scale",
    });
    assert.equal(r.applied, true);
    assert.deepEqual(
      editedFiles(r)
        .map((f) => f.relative_path)
        .sort(),
      ["src/main.rs", "src/money.rs", "src/pricing.rs", "src/report.rs"],
    );
    const thermo = await readText(fx.dir, "src/thermo.rs");
    assert.equal(
      (thermo.match(/multiply_by_rate/g) ?? []).length,
      2,
      "Thermometer's method and call unchanged",
    );
    assert.ok((await readText(fx.dir, "src/report.rs")).includes("total.scale(1.2)"));
    const check = cargoCheck(fx.dir);
    assert.equal(check.status, 0, check.output);
    const after = await callOk<FindSymbolResult>(h, "find_symbol", {
      name_path_pattern: "Money/scale",
      relative_path: "src/money.rs",
    });
    assert.equal(flatten(after.symbols).length, 1);
  });
});
