// The Python adapter's own logic, on the shapes pyright 1.1.414 sends (measured on
// test/fixtures/python-basic): symbol clean-up, declaration heads, where pyright-langserver and
// the interpreter may come from, and what onboarding reads from pyproject.toml.
import assert from "node:assert/strict";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { type DocumentSymbol, SymbolKind } from "vscode-languageserver-protocol";
import { adapters } from "../../language-servers/index.js";
import { pyrightCheck } from "../../language-servers/pyright-check.js";
import { findPyright, normalizePythonSymbols, pathOutside } from "../../language-servers/python.js";
import { pythonFacts } from "../../language-servers/python-facts.js";
import type { NormalizedSymbol } from "../../src/languages/normalized-symbol.js";

const at = (line: number, from = 0, to = from + 5) => ({
  start: { line, character: from },
  end: { line, character: to },
});
const sym = (name: string, kind: SymbolKind, line: number, end: number, children?: DocumentSymbol[]) => ({
  name,
  kind,
  range: { start: { line, character: 0 }, end: { line: end, character: 1 } },
  selectionRange: at(line),
  ...(children ? { children } : {}),
});

test("parameters and locals of functions are dropped; instance attributes go back into source order", () => {
  // As pyright lists `class Cart` (shop/cart.py): methods, then `self.items` named in __init__.
  const cart = sym("Cart", SymbolKind.Class, 15, 35, [
    sym("__init__", SymbolKind.Method, 18, 19),
    sym("total", SymbolKind.Method, 26, 31, [
      sym("self", SymbolKind.Variable, 26, 26),
      sym("subtotal", SymbolKind.Variable, 28, 28),
    ]),
    sym("Inner", SymbolKind.Class, 32, 34, [sym("flag", SymbolKind.Variable, 33, 33)]),
    { name: "items", kind: SymbolKind.Variable, range: at(19, 13), selectionRange: at(19, 13) },
  ]);
  const withTax = sym("with_tax", SymbolKind.Function, 38, 44, [
    sym("cart", SymbolKind.Variable, 38, 38),
    sym("rounded", SymbolKind.Function, 41, 42, [sym("value", SymbolKind.Variable, 41, 41)]),
  ]);
  const names = (list: DocumentSymbol[], prefix = ""): string[] =>
    list.flatMap((s) => [`${prefix}${s.name}`, ...names(s.children ?? [], `${prefix}${s.name}/`)]);
  assert.deepEqual(
    names(normalizePythonSymbols([withTax, cart, sym("TAX_RATE", SymbolKind.Variable, 4, 4)])),
    [
      "TAX_RATE",
      "Cart",
      "Cart/__init__",
      "Cart/items",
      "Cart/total",
      "Cart/Inner",
      "Cart/Inner/flag",
      "with_tax",
      "with_tax/rounded",
    ],
  );
});

test("a declaration's head is its comments and decorators; the docstring is body", () => {
  const text = [
    "class Cart:",
    "    # Counted on every call.",
    "    @property",
    "    def count(self) -> int:",
    '        """How many."""',
    "        return 1",
    "",
  ].join("\n");
  const python = adapters.find((a) => a.id === "python")!;
  // pyright's range for a decorated method starts at the decorator (measured).
  const raw = sym("Cart", SymbolKind.Class, 0, 5, [
    {
      name: "count",
      kind: SymbolKind.Method,
      range: { start: { line: 2, character: 4 }, end: { line: 5, character: 16 } },
      selectionRange: at(3, 8),
    },
  ]);
  const count = (python.normalizeSymbols!([raw], text)[0] as NormalizedSymbol)
    .children![0] as NormalizedSymbol;
  assert.deepEqual(count.declaration, {
    head: { line: 1, character: 4 },
    body: { line: 3, character: 4 },
  });
});

test("PATH for an untrusted project: absolute entries outside the project only", () => {
  const root = "/srv/proj";
  assert.equal(
    pathOutside(
      ["bin", "", "/usr/bin", "/srv/proj/.venv/bin", "/srv/proj", "/srv/projx/bin"].join(":"),
      root,
    ),
    "/usr/bin:/srv/projx/bin",
  );
  assert.equal(pathOutside("bin::/usr/bin", undefined), "/usr/bin");
});

test("pyright-langserver: SCALPEL_PYRIGHT, else PATH outside the project, else scalpel's own copy", async () => {
  const dir = await mkdtemp(join(tmpdir(), "scalpel-pyright-"));
  try {
    const bin = join(dir, "proj", "node_modules", ".bin");
    await mkdir(bin, { recursive: true });
    await writeFile(join(bin, "pyright-langserver"), "#!/bin/sh\n");
    await chmod(join(bin, "pyright-langserver"), 0o755);
    const onPath = findPyright({ PATH: bin });
    assert.ok(
      !("missing" in onPath) &&
        onPath.from === "PATH" &&
        onPath.launch.command === join(bin, "pyright-langserver"),
    );
    // The same PATH for an untrusted project at `proj`: the repository's copy is not used.
    const own = findPyright({ PATH: bin }, join(dir, "proj"));
    assert.ok(!("missing" in own) && own.from === "installed with scalpel", JSON.stringify(own));
    assert.equal(own.launch.command, process.execPath);
    const explicit = findPyright({ PATH: "", SCALPEL_PYRIGHT: join(dir, "nope") });
    assert.ok(
      "missing" in explicit &&
        /SCALPEL_PYRIGHT/.test(explicit.missing) &&
        /pip install pyright/.test(explicit.missing),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("onboarding: pyproject.toml's project, scripts and tools; the lock file names the runner", () => {
  const pyproject = [
    "[project]",
    'name = "shop"',
    'version = "1.2.0"',
    'requires-python = ">=3.11"',
    'dependencies = ["httpx>=0.27", "pydantic"]',
    "",
    "[project.scripts]",
    'shop = "shop.cli:main"',
    "",
    "[build-system]",
    'requires = ["hatchling"]',
    'build-backend = "hatchling.build"',
    "",
    "[tool.ruff]",
    "line-length = 100",
    "",
    "[tool.pytest.ini_options]",
    'testpaths = ["tests"]',
    "",
  ].join("\n");
  const facts = pythonFacts({ pyproject, has: (n) => n === "uv.lock" });
  assert.deepEqual(facts.commands, [
    "uv sync (uv.lock; install)",
    "uv run python -m pytest (pyproject.toml [tool.pytest]; test)",
    "uv run ruff check . (pyproject.toml [tool.ruff]; lint)",
    "python -m build (pyproject.toml [build-system]; build)",
  ]);
  assert.equal(facts.packageManager, "uv (uv.lock)");
  assert.deepEqual(facts.entryPoints, ["shop → shop.cli:main (pyproject.toml [project.scripts])"]);
  assert.deepEqual(facts.notes, [
    "Python project shop: 1.2.0, requires-python >=3.11, 2 dependencies, built with hatchling.build (pyproject.toml)",
  ]);
  const plain = pythonFacts({ pyproject: null, has: (n) => n === "requirements.txt" });
  assert.deepEqual(plain.buildFiles, ["requirements.txt"]);
  assert.deepEqual(plain.commands, [
    "pip install -r requirements.txt (requirements.txt; install)",
    "python -m pytest (requirements.txt; test)",
  ]);
});

test("the whole-project check: one pyright run per outermost pyproject.toml, its JSON parsed", () => {
  const check = pyrightCheck(() => ({ command: "/opt/pyright", args: [] }));
  const units = check.units("/p", [
    "pyproject.toml",
    "tools/pyproject.toml",
    "../x",
    "libs/a/pyproject.toml",
  ]);
  assert.deepEqual(
    units.map((u) => `${u.how} @ ${u.cwd}: ${u.launch.args.join(" ")}`),
    ["pyright -p pyproject.toml @ /p: --outputjson -p /p/pyproject.toml"],
  );
  const apart = check.units("/p", ["a/pyproject.toml", "ab/pyproject.toml", "a/b/pyproject.toml"]);
  assert.deepEqual(
    apart.map((u) => u.project),
    ["a/pyproject.toml", "ab/pyproject.toml"],
  );
  const stdout = JSON.stringify({
    generalDiagnostics: [
      {
        file: "/p/shop/bad.py",
        severity: "error",
        message: "Type mismatch",
        range: { start: { line: 0, character: 9 }, end: { line: 0, character: 12 } },
        rule: "reportAssignmentType",
      },
      { file: "/p/shop/bad.py", severity: "warning", message: "Import unused", range: at(3) },
    ],
  });
  const found = check.parse(stdout, units[0]!);
  assert.deepEqual(
    found.map(
      (f) =>
        `${f.file}:${f.diagnostic.range.start.line} ${f.diagnostic.severity} ${f.diagnostic.code ?? "-"}`,
    ),
    ["/p/shop/bad.py:0 1 reportAssignmentType", "/p/shop/bad.py:3 2 -"],
  );
  assert.deepEqual(check.parse("not json", units[0]!), []);
});
