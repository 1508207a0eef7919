// @alone it trusts projects or reads trust in the tests' default SCALPEL_HOME, shared in a group
/**
 * Go end to end over the built CLI against a real gopls, on a module without dependencies
 * (test/fixtures/go-basic): a struct with pointer- and value-receiver methods called from another
 * package and one in another file than its type, an interface with two implementations (one through
 * a pointer receiver).
 * Skipped, with the reason printed, when gopls is not installed.
 */
import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { lineOf, sitesOn } from "../helpers/anchors.js";
import { copyFixture, readText, type TempProject } from "../helpers/fixtures.js";
import {
  callOk,
  commandOf,
  type Diagnostic,
  descendants,
  type EditResult,
  editedFiles,
  type FindSymbolResult,
  flatten,
  type OutlineFile,
  outlineSymbols,
  type ReferencesResult,
  type ScalpelHandle,
  sitesOf,
  startScalpel,
} from "../helpers/mcp.js";
import { goplsMissing } from "../helpers/servers.js";

const skip =
  goplsMissing() ?? (spawnSync("go", ["version"]).status === 0 ? undefined : "`go` is not on PATH");
if (skip) process.stdout.write(`# SKIP go e2e: ${skip}\n`);

/** `go build ./...` in the copy: the edits left a module that compiles. */
function goBuild(dir: string): { status: number | null; output: string } {
  const r = spawnSync("go", ["build", "./..."], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, GOFLAGS: "-mod=readonly", GOTOOLCHAIN: "local" },
  });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

describe("Go (e2e, gopls)", { skip: skip ?? false }, () => {
  let fx: TempProject;
  let h: ScalpelHandle;

  before(async () => {
    fx = await copyFixture("go-basic");
    h = await startScalpel({ project: fx.dir });
  });

  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  it("find_symbol addresses methods through their receiver type, pointer or value", async () => {
    const text = await readText(fx.dir, "cart/cart.go");
    const total = await callOk<FindSymbolResult>(h, "find_symbol", { name_path_pattern: "Cart/Total" });
    assert.deepEqual(
      total.symbols.map((s) => `${s.relative_path} ${s.name_path} ${s.kind}`),
      ["cart/cart.go Cart/Total Method"],
    );
    assert.equal(total.symbols[0]?.start_line, lineOf(text, "func (c Cart) Total"));
    assert.match(total.symbols[0]?.detail ?? "", /^\(Cart\) func\(\) int$/);
    const add = await callOk<FindSymbolResult>(h, "find_symbol", { name_path_pattern: "Cart/Add" });
    assert.match(add.symbols[0]?.detail ?? "", /^\(\*Cart\) /);
    const cart = await callOk<FindSymbolResult>(h, "find_symbol", {
      name_path_pattern: "/Cart",
      relative_path: "cart/cart.go",
      depth: 1,
    });
    assert.deepEqual(
      flatten(cart.symbols).map((s) => s.name_path),
      ["Cart", "Cart/items", "Cart/Add", "Cart/Total"],
    );
    // gopls's range for a type starts at its name; the declaration (docs included) ends up whole.
    const item = await callOk<FindSymbolResult>(h, "find_symbol", {
      name_path_pattern: "Item",
      relative_path: "cart/cart.go",
      include_body: true,
    });
    assert.equal(
      item.symbols[0]?.body,
      "// Item is one line of a cart.\ntype Item struct {\n\tName  string\n\tPrice int\n}",
    );
    // A method in another file than its type: that file's stand-in for the type carries it.
    const discount = await callOk<FindSymbolResult>(h, "find_symbol", { name_path_pattern: "Cart/Discount" });
    assert.deepEqual(
      discount.symbols.map((s) => `${s.relative_path} ${s.name_path} ${s.kind}`),
      ["cart/discount.go Cart/Discount Method"],
    );
    const areas = await callOk<FindSymbolResult>(h, "find_symbol", { name_path_pattern: "Area" });
    assert.deepEqual(areas.symbols.map((s) => s.name_path).sort(), [
      "Circle/Area",
      "Shape/Area",
      "Square/Area",
    ]);
  });

  it("find_referencing_symbols gives the call sites in another package with their containing symbols", async () => {
    const r = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
      name_path: "Cart/Total",
      relative_path: "cart/cart.go",
    });
    assert.equal(r.complete, true, r.incomplete_reason);
    const main = await readText(fx.dir, "cmd/shop/main.go");
    const discount = await readText(fx.dir, "cart/discount.go");
    assert.deepEqual(
      sitesOf(r)
        .map((x) => `${x.relative_path}:${x.line} ${x.container}`)
        .sort(),
      [
        ...sitesOn(discount, "return c.Total() / 10", "Total").map(
          (p) => `cart/discount.go:${p.line} Cart/Discount`,
        ),
        ...sitesOn(main, "return c.Total()", "Total").map((p) => `cmd/shop/main.go:${p.line} checkout`),
      ],
    );
    // A use inside a method body belongs to the method, addressed through its type.
    const items = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
      name_path: "Cart/items",
      relative_path: "cart/cart.go",
    });
    assert.deepEqual([...new Set(sitesOf(items).map((x) => x.container))].sort(), [
      "Cart/Add",
      "Cart/Discount",
      "Cart/Total",
    ]);
    assert.deepEqual(h.hostPathLeaks, []);
  });

  it("find_implementations lists both implementations of the interface", async () => {
    const t = await callOk<{ implementations: OutlineFile[]; complete: boolean }>(h, "find_implementations", {
      name_path: "Shape",
      relative_path: "shape/shape.go",
    });
    assert.equal(t.complete, true);
    assert.deepEqual(
      outlineSymbols(t.implementations)
        .map((s) => `${s.relative_path} ${s.name_path}`)
        .sort(),
      ["shape/shape.go Circle", "shape/shape.go Square"],
    );
  });

  it("find_declaration on a method call names the method through its receiver type", async () => {
    // gopls answers the method's name; the receiver type keeps that name as a part of its own
    // (go.ts), so the symbol whose own name is there must win over the type.
    const main = await readText(fx.dir, "cmd/shop/main.go");
    const d = await callOk<{ declaration: { name_path: string; relative_path?: string } | null }>(
      h,
      "find_declaration",
      { relative_path: "cmd/shop/main.go", line: lineOf(main, "return c.Total()"), identifier: "Total" },
    );
    assert.equal(d.declaration?.name_path, "Cart/Total");
    assert.equal(d.declaration?.relative_path, "cart/cart.go");
  });

  it("get_diagnostics_for_file reports a type error written to disk by another process", async () => {
    const clean = await callOk<{ diagnostics: Diagnostic[]; complete: boolean }>(
      h,
      "get_diagnostics_for_file",
      {
        relative_path: "cmd/shop/main.go",
      },
    );
    assert.equal(clean.complete, true);
    assert.deepEqual(clean.diagnostics, []);
    const original = await readText(fx.dir, "cmd/shop/main.go");
    const broken = original.replace("return c.Total()", 'return c.Total() + "x"');
    await writeFile(join(fx.dir, "cmd/shop/main.go"), broken);
    const r = await callOk<{ diagnostics: Diagnostic[]; complete: boolean; incomplete_reason?: string }>(
      h,
      "get_diagnostics_for_file",
      { relative_path: "cmd/shop/main.go" },
    );
    assert.equal(r.complete, true, r.incomplete_reason);
    const errors = r.diagnostics.filter((d) => d.severity === "error");
    assert.deepEqual(
      errors.map((d) => `${d.line} ${d.symbol}`),
      [`${lineOf(broken, 'c.Total() + "x"')} checkout`],
      JSON.stringify(r.diagnostics),
    );
    await writeFile(join(fx.dir, "cmd/shop/main.go"), original);
    const fixed = await callOk<{ diagnostics: Diagnostic[]; complete: boolean }>(
      h,
      "get_diagnostics_for_file",
      {
        relative_path: "cmd/shop/main.go",
      },
    );
    assert.equal(fixed.complete, true);
    assert.deepEqual(fixed.diagnostics, []);
  });

  it("get_project_diagnostics says gopls offers no whole-project check", async () => {
    const r = await callOk<{ complete: boolean; incomplete_reason?: string }>(
      h,
      "get_project_diagnostics",
      {},
    );
    assert.equal(r.complete, false);
    assert.match(r.incomplete_reason ?? "", /\(Go \(gopls\)\) offers no whole-project diagnostics/);
  });

  it("replace_symbol_body replaces one method and keeps its doc comment", async () => {
    const r = await callOk<EditResult>(h, "replace_symbol_body", {
      name_path: "Square/Area",
      relative_path: "shape/shape.go",
      body: "func (s Square) Area() float64 {\n\treturn s.Side * s.Side * 1\n}",
    });
    assert.equal(r.applied, true);
    const text = await readText(fx.dir, "shape/shape.go");
    assert.ok(
      text.includes(
        "// Area of the square.\nfunc (s Square) Area() float64 {\n\treturn s.Side * s.Side * 1\n}\n",
      ),
      text,
    );
    assert.ok(
      text.includes("func (c *Circle) Area() float64 {\n\treturn 3 *"),
      "the other Area is untouched",
    );
    const build = goBuild(fx.dir);
    assert.equal(build.status, 0, build.output);
  });

  it("rename_symbol renames a method across packages; go build ./... passes", async () => {
    const r = await callOk<EditResult>(h, "rename_symbol", {
      name_path: "Cart/Total",
      relative_path: "cart/cart.go",
      new_name: "Sum",
    });
    assert.equal(r.applied, true);
    assert.deepEqual(
      editedFiles(r)
        .map((f) => f.relative_path)
        .sort(),
      ["cart/cart.go", "cart/discount.go", "cmd/shop/main.go"],
    );
    assert.ok((await readText(fx.dir, "cmd/shop/main.go")).includes("return c.Sum()"));
    assert.ok(
      (await readText(fx.dir, "shape/shape.go")).includes("func Sum("),
      "shape.Sum is another symbol",
    );
    const build = goBuild(fx.dir);
    assert.equal(build.status, 0, build.output);
    const after = await callOk<FindSymbolResult>(h, "find_symbol", {
      name_path_pattern: "Cart/Sum",
      relative_path: "cart/cart.go",
    });
    assert.equal(after.symbols.length, 1);
  });
});

describe("Go (e2e, gopls) in a project the user has not trusted", { skip: skip ?? false }, () => {
  let fx: TempProject;
  let h: ScalpelHandle;

  before(async () => {
    fx = await copyFixture("go-basic");
    // A repository that names a toolchain: with the user's GOTOOLCHAIN=auto, `go` would fetch and
    // run go1.99.0 (the proxy has none, so loading fails) before answering anything.
    const mod = await readText(fx.dir, "go.mod");
    await writeFile(join(fx.dir, "go.mod"), `${mod}\ntoolchain go1.99.0\n`);
    h = await startScalpel({
      project: fx.dir,
      trust: false,
      env: { GOTOOLCHAIN: "auto", GOFLAGS: "-mod=mod", CGO_ENABLED: "1" },
    });
  });

  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  it("gopls runs with the go command pinned: local toolchain, no cgo, go.mod read-only", async () => {
    // The first calls arrive together, as hosts send them, while gopls is still loading.
    const [r, impl] = await Promise.all([
      callOk<ReferencesResult>(h, "find_referencing_symbols", {
        name_path: "Cart/Total",
        relative_path: "cart/cart.go",
      }),
      callOk<{ implementations: OutlineFile[] }>(h, "find_implementations", {
        name_path: "Shape",
        relative_path: "shape/shape.go",
      }),
    ]);
    assert.equal(r.complete, true, r.incomplete_reason);
    assert.deepEqual(
      outlineSymbols(impl.implementations)
        .map((s) => s.name_path)
        .sort(),
      ["Circle", "Square"],
    );
    assert.deepEqual(
      sitesOf(r)
        .map((x) => `${x.relative_path} ${x.container}`)
        .sort(),
      ["cart/discount.go Cart/Discount", "cmd/shop/main.go checkout"],
    );
    // gopls v0.23.0 also starts a `gopls ** telemetry **` child (golang.org/x/telemetry's sidecar).
    const gopls = descendants(h.pid).filter((pid) => /\bgopls$/.test(commandOf(pid)));
    assert.equal(gopls.length, 1, descendants(h.pid).map(commandOf).join("\n"));
    const env = (await readFile(`/proc/${gopls[0]}/environ`, "utf8")).split("\0");
    for (const pinned of ["GOTOOLCHAIN=local", "CGO_ENABLED=0", "GOFLAGS=-mod=readonly"]) {
      assert.ok(env.includes(pinned), pinned);
    }
  });
});
