// @alone it trusts projects or reads trust in the tests' default SCALPEL_HOME, shared in a group
/**
 * Python end to end over the built CLI against a real pyright (the built-in adapter,
 * language-servers/python.ts), on a small package without dependencies (test/fixtures/python-basic):
 * a dataclass, a class whose methods are called from another module, the main script and a test,
 * an abstract class with two implementations, and a second `total` that is another symbol.
 * Skipped, with the reason printed, when pyright-langserver is not found.
 */
import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import { chmod, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { findPyright } from "../../language-servers/python.js";
import { lineOf, sitesOn } from "../helpers/anchors.js";
import { copyFixture, readText, repoRoot, type TempProject } from "../helpers/fixtures.js";
import {
  call,
  callOk,
  commandOf,
  type Diagnostic,
  descendants,
  type EditResult,
  editedFiles,
  type FindSymbolResult,
  flatten,
  type ReferencesResult,
  type ScalpelHandle,
  type Sym,
  sitesOf,
  startScalpel,
} from "../helpers/mcp.js";
import { fullTierCase } from "../helpers/tier.js";

const found = findPyright();
const skip = "missing" in found ? `pyright not available: ${found.missing}` : undefined;
if (skip) process.stdout.write(`# SKIP python e2e: ${skip}\n`);

/** pyright's CLI (the devDependency) on the copy: the edits left a package without type errors. */
function pyrightCheck(dir: string): { errors: string[]; output: string } {
  const cli = join(repoRoot, "node_modules", "pyright", "index.js");
  const r = spawnSync(process.execPath, [cli, "--outputjson"], { cwd: dir, encoding: "utf8" });
  try {
    const out = JSON.parse(r.stdout) as {
      generalDiagnostics: Array<{ file: string; severity: string; message: string }>;
    };
    return {
      errors: out.generalDiagnostics.filter((d) => d.severity === "error").map((d) => d.message),
      output: r.stdout,
    };
  } catch {
    return {
      errors: [`pyright CLI did not answer JSON (exit ${r.status})`],
      output: `${r.stdout}${r.stderr}`,
    };
  }
}

interface Call {
  relative_path?: string;
  name_path: string | null;
  sites: number[];
}

describe("Python (e2e, pyright)", { skip: skip ?? false }, () => {
  let fx: TempProject;
  let h: ScalpelHandle;

  before(async () => {
    fx = await copyFixture("python-basic");
    h = await startScalpel({ project: fx.dir });
  });

  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  it("is a built-in language: detected and served by pyright without a project.yml", async () => {
    const c = await callOk<{
      project: { languages: string[] };
      servers: Array<{ language: string; command: string }>;
    }>(h, "get_current_config");
    assert.deepEqual(c.project.languages, ["python"]);
    assert.ok(
      c.servers.some((s) => s.language === "python" && /pyright|langserver/.test(s.command)),
      JSON.stringify(c.servers),
    );
  });

  it("onboarding reads pyproject.toml: the project, its test command and the main script", async () => {
    const r = await h.call("onboarding");
    assert.equal(r.isError, false, r.text);
    assert.match(r.text, /^- python -m pytest \(pyproject\.toml \[tool\.pytest\]; test\)$/m);
    assert.match(r.text, /^- pip install -e \. \(pyproject\.toml; install\)$/m);
    assert.match(r.text, /Python project shop: 0\.1\.0, requires-python >=3\.10 \(pyproject\.toml\)/);
    assert.match(r.text, /main\.py \(Python script\)/);
  });

  it("find_symbol addresses methods through their class; locals and parameters are no symbols", async () => {
    const text = await readText(fx.dir, "shop/cart.py");
    const total = await callOk<FindSymbolResult>(h, "find_symbol", { name_path_pattern: "Cart/total" });
    assert.deepEqual(
      total.symbols.map((s) => `${s.relative_path} ${s.name_path} ${s.kind}`),
      ["shop/cart.py Cart/total Method"],
    );
    assert.equal(total.symbols[0]?.start_line, lineOf(text, "def total(self)"));
    const both = await callOk<FindSymbolResult>(h, "find_symbol", { name_path_pattern: "total" });
    assert.deepEqual(both.symbols.map((s) => `${s.relative_path} ${s.name_path}`).sort(), [
      "shop/cart.py Cart/total",
      "shop/shapes.py total",
    ]);
    const cart = await callOk<FindSymbolResult>(h, "find_symbol", {
      name_path_pattern: "/Cart",
      relative_path: "shop/cart.py",
      depth: 2,
    });
    // Source order; the instance attribute set in __init__ is a member; `subtotal`, `item` and
    // the parameters are not.
    assert.deepEqual(
      flatten(cart.symbols).map((s) => s.name_path),
      ["Cart", "Cart/__init__", "Cart/items", "Cart/add", "Cart/total", "Cart/count"],
    );
    const withTax = await callOk<FindSymbolResult>(h, "find_symbol", {
      name_path_pattern: "with_tax",
      depth: 1,
    });
    assert.deepEqual(
      flatten(withTax.symbols).map((s) => s.name_path),
      ["with_tax", "with_tax/rounded"],
    );
    // A decorated declaration starts at its decorator; the docstring is part of the body.
    const item = await callOk<FindSymbolResult>(h, "find_symbol", {
      name_path_pattern: "Item",
      relative_path: "shop/cart.py",
      include_body: true,
    });
    assert.equal(
      item.symbols[0]?.body,
      '@dataclass\nclass Item:\n    """One line of a cart."""\n\n    name: str\n    price: int',
    );
  });

  it("get_symbols_overview lists a file's top level, members with depth", async () => {
    const r = await callOk<{ files: Array<{ relative_path: string; symbols: Sym[] }>; complete: boolean }>(
      h,
      "get_symbols_overview",
      { relative_path: "shop/shapes.py", depth: 1 },
    );
    assert.equal(r.complete, true);
    assert.deepEqual(
      flatten(r.files[0]?.symbols ?? []).map((s) => `${s.name_path} ${s.kind}`),
      [
        "Shape Class",
        "Shape/area Method",
        "Square Class",
        "Square/__init__ Method",
        "Square/side Variable",
        "Square/area Method",
        "Circle Class",
        "Circle/__init__ Method",
        "Circle/radius Variable",
        "Circle/area Method",
        "total Function",
      ],
    );
  });

  it("find_referencing_symbols gives the call sites in other modules with their containing symbols", async () => {
    const r = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
      name_path: "Cart/total",
      relative_path: "shop/cart.py",
    });
    assert.equal(r.complete, true, r.incomplete_reason);
    const main = await readText(fx.dir, "main.py");
    const discount = await readText(fx.dir, "shop/discount.py");
    const cart = await readText(fx.dir, "shop/cart.py");
    const test = await readText(fx.dir, "tests/test_cart.py");
    assert.deepEqual(
      sitesOf(r)
        .map((x) => `${x.relative_path}:${x.line} ${x.container}`)
        .sort(),
      [
        ...sitesOn(main, "return cart.total()", "total").map((p) => `main.py:${p.line} checkout`),
        ...sitesOn(cart, "rounded(cart.total()", "total").map((p) => `shop/cart.py:${p.line} with_tax`),
        ...sitesOn(discount, "return cart.total()", "total").map(
          (p) => `shop/discount.py:${p.line} discount`,
        ),
        ...sitesOn(test, "assert cart.total()", "total").map(
          (p) => `tests/test_cart.py:${p.line} test_total`,
        ),
      ],
    );
    // Test files are pytest's: tests/test_cart.py is left out on request.
    const noTests = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
      name_path: "Cart/total",
      relative_path: "shop/cart.py",
      exclude_tests: true,
    });
    assert.deepEqual([...new Set(sitesOf(noTests).map((x) => x.relative_path))].sort(), [
      "main.py",
      "shop/cart.py",
      "shop/discount.py",
    ]);
    // Uses inside methods belong to the methods, addressed through their class.
    const items = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
      name_path: "Cart/items",
      relative_path: "shop/cart.py",
    });
    assert.deepEqual([...new Set(sitesOf(items).map((x) => x.container))].sort(), [
      "Cart/add",
      "Cart/count",
      "Cart/total",
    ]);
    assert.deepEqual(h.hostPathLeaks, []);
  });

  it("get_type_info gives pyright's signature and the docstring, as plain text", async () => {
    const r = await callOk<{ symbol: string | null; type_info: string; complete: boolean }>(
      h,
      "get_type_info",
      { name_path: "Cart/total", relative_path: "shop/cart.py" },
    );
    assert.equal(r.symbol, "Cart/total");
    assert.match(r.type_info, /def total\(self: Self@Cart\) -> int/);
    assert.match(r.type_info, /Sum of the prices\./);
    assert.doesNotMatch(r.type_info, /```/);
  });

  it("get_call_hierarchy lists the callers of a method, each once, with their call lines", async () => {
    const r = await callOk<{ incoming?: Call[] }>(h, "get_call_hierarchy", {
      name_path: "Cart/total",
      relative_path: "shop/cart.py",
    });
    const main = await readText(fx.dir, "main.py");
    const cart = await readText(fx.dir, "shop/cart.py");
    assert.deepEqual(
      (r.incoming ?? []).map((c) => `${c.relative_path} ${c.name_path} ${c.sites.join(",")}`).sort(),
      [
        `main.py checkout ${lineOf(main, "return cart.total()")}`,
        `shop/cart.py with_tax ${lineOf(cart, "rounded(cart.total()")}`,
        `shop/discount.py discount ${lineOf(await readText(fx.dir, "shop/discount.py"), "return cart.total()")}`,
        `tests/test_cart.py test_total ${lineOf(await readText(fx.dir, "tests/test_cart.py"), "assert cart.total()")}`,
      ],
    );
  });

  it("type hierarchy and implementations: pyright offers neither, and the tools say so", async () => {
    for (const tool of ["get_type_hierarchy", "find_implementations"]) {
      const r = await call(h.client, tool, { name_path: "Shape", relative_path: "shop/shapes.py" });
      assert.equal(r.isError, true, r.text);
      assert.match(
        r.text,
        /^Error \(not_supported\): \w+ is not supported by the python language server/,
        r.text,
      );
    }
  });

  it("get_diagnostics_for_file reports a type error written to disk by another process", async () => {
    const clean = await callOk<{ diagnostics: Diagnostic[]; complete: boolean }>(
      h,
      "get_diagnostics_for_file",
      { relative_path: "main.py" },
    );
    assert.equal(clean.complete, true);
    assert.deepEqual(clean.diagnostics, []);
    const original = await readText(fx.dir, "main.py");
    const broken = original.replace("return cart.total() - discount(cart)", 'return cart.total() - "x"');
    await writeFile(join(fx.dir, "main.py"), broken);
    const r = await callOk<{ diagnostics: Diagnostic[]; complete: boolean; incomplete_reason?: string }>(
      h,
      "get_diagnostics_for_file",
      { relative_path: "main.py" },
    );
    assert.equal(r.complete, true, r.incomplete_reason);
    // pyright is Python's only checker: its name says nothing in an answer.
    assert.deepEqual(
      r.diagnostics.map((d) => d.source),
      r.diagnostics.map(() => undefined),
    );
    assert.deepEqual(
      r.diagnostics.filter((d) => d.severity === "error").map((d) => `${d.line} ${d.symbol}`),
      [`${lineOf(broken, 'cart.total() - "x"')} checkout`],
      JSON.stringify(r.diagnostics),
    );
    // A change in a module it imports, on disk: the method it calls is gone.
    await writeFile(join(fx.dir, "main.py"), original);
    const cart = await readText(fx.dir, "shop/cart.py");
    await writeFile(join(fx.dir, "shop/cart.py"), cart.replace("def total(self)", "def total_price(self)"));
    const dep = await callOk<{ diagnostics: Diagnostic[]; complete: boolean }>(
      h,
      "get_diagnostics_for_file",
      {
        relative_path: "main.py",
      },
    );
    assert.deepEqual(
      dep.diagnostics.filter((d) => d.severity === "error").map((d) => `${d.line} ${d.symbol}`),
      [`${lineOf(original, "return cart.total()")} checkout`],
      JSON.stringify(dep.diagnostics),
    );
    await writeFile(join(fx.dir, "shop/cart.py"), cart);
    const fixed = await callOk<{ diagnostics: Diagnostic[]; complete: boolean }>(
      h,
      "get_diagnostics_for_file",
      { relative_path: "main.py" },
    );
    assert.equal(fixed.complete, true);
    assert.deepEqual(fixed.diagnostics, []);
  });

  it("get_project_diagnostics runs pyright's CLI: errors in files nobody opened, a nested project once", async () => {
    await writeFile(join(fx.dir, "shop", "broken.py"), 'price: int = "ten"\n');
    await mkdir(join(fx.dir, "tools"), { recursive: true });
    await writeFile(join(fx.dir, "tools", "pyproject.toml"), '[project]\nname = "tools"\n');
    await writeFile(join(fx.dir, "tools", "gen.py"), "count: str = 1\n");
    try {
      const r = await callOk<{
        files: Array<{ relative_path: string; diagnostics: Diagnostic[] }>;
        checked: Array<{ language: string; how: string; project?: string }>;
        complete: boolean;
        incomplete_reason?: string;
      }>(h, "get_project_diagnostics", {});
      assert.equal(r.complete, true, r.incomplete_reason);
      // The root project covers tools/: pyright checks every file below the one it is given.
      assert.deepEqual(r.checked, [
        { language: "python", how: "pyright -p pyproject.toml", project: "pyproject.toml" },
      ]);
      assert.deepEqual(
        r.files.flatMap((f) =>
          f.diagnostics.map((d) => `${f.relative_path}:${d.line} ${d.severity} ${d.code}`),
        ),
        ["shop/broken.py:1 error reportAssignmentType", "tools/gen.py:1 error reportAssignmentType"],
      );
      assert.deepEqual(h.hostPathLeaks, []);
    } finally {
      await rm(join(fx.dir, "shop", "broken.py"));
      await rm(join(fx.dir, "tools"), { recursive: true });
    }
  });

  it("replace_symbol_body replaces a method, keeps the comment above it, leaves the other `area`s", async () => {
    const r = await callOk<EditResult>(h, "replace_symbol_body", {
      name_path: "Cart/total",
      relative_path: "shop/cart.py",
      body: 'def total(self) -> int:\n    """Sum of the prices."""\n    return sum(item.price for item in self.items)',
    });
    assert.equal(r.applied, true);
    const text = await readText(fx.dir, "shop/cart.py");
    assert.ok(
      text.includes(
        '    # The sum of the prices, before discounts.\n    def total(self) -> int:\n        """Sum of the prices."""\n        return sum(item.price for item in self.items)\n\n    @property\n',
      ),
      text,
    );
    // A decorated method: new code without a decorator goes below the one it has.
    const count = await callOk<EditResult>(h, "replace_symbol_body", {
      name_path: "Cart/count",
      relative_path: "shop/cart.py",
      body: "def count(self) -> int:\n    return len(self.items) + 0",
    });
    assert.equal(count.applied, true);
    assert.ok(
      (await readText(fx.dir, "shop/cart.py")).includes(
        "    @property\n    def count(self) -> int:\n        return len(self.items) + 0\n",
      ),
    );
    const area = await callOk<EditResult>(h, "replace_symbol_body", {
      name_path: "Square/area",
      relative_path: "shop/shapes.py",
      body: "def area(self) -> float:\n    return self.side**2",
    });
    assert.equal(area.applied, true);
    const shapes = await readText(fx.dir, "shop/shapes.py");
    assert.ok(shapes.includes("    def area(self) -> float:\n        return self.side**2\n"), shapes);
    assert.ok(
      shapes.includes("    @abstractmethod\n    def area(self) -> float: ...\n"),
      "Shape/area untouched",
    );
    assert.ok(shapes.includes("return 3 * self.radius * self.radius"), "Circle/area untouched");
    const check = pyrightCheck(fx.dir);
    assert.deepEqual(check.errors, [], check.output);
  });

  it("rename_symbol renames a method across modules and tests; pyright's CLI finds no error", async () => {
    const r = await callOk<EditResult>(h, "rename_symbol", {
      name_path: "Cart/total",
      relative_path: "shop/cart.py",
      new_name: "sum_prices",
    });
    assert.equal(r.applied, true);
    assert.deepEqual(
      editedFiles(r)
        .map((f) => f.relative_path)
        .sort(),
      ["main.py", "shop/cart.py", "shop/discount.py", "tests/test_cart.py"],
    );
    assert.ok((await readText(fx.dir, "main.py")).includes("return cart.sum_prices() - discount(cart)"));
    assert.ok(
      (await readText(fx.dir, "shop/shapes.py")).includes("def total("),
      "shapes.total is another symbol",
    );
    const check = pyrightCheck(fx.dir);
    assert.deepEqual(check.errors, [], check.output);
    const after = await callOk<FindSymbolResult>(h, "find_symbol", {
      name_path_pattern: "Cart/sum_prices",
      relative_path: "shop/cart.py",
    });
    assert.equal(after.symbols.length, 1);
  });
});

/**
 * A repository that puts its own `python3` where pyright may look: `bin/python3`, reached through a
 * relative PATH entry (pyright runs the interpreter in the project root), and a virtualenv inside
 * the project, named by pyrightconfig.json (and, for the untrusted test, on PATH as an activated
 * one would be). Each fake interpreter records that it ran, outside the project, and fails.
 */
async function plantInterpreters(fx: TempProject): Promise<string> {
  const marker = join(fx.base, "ran-python");
  const script = `#!/bin/sh\necho "$0" >> '${marker}'\nexit 1\n`;
  for (const dir of ["bin", ".venv/bin"]) {
    await mkdir(join(fx.dir, dir), { recursive: true });
    for (const name of ["python3", "python"]) {
      await writeFile(join(fx.dir, dir, name), script);
      await chmod(join(fx.dir, dir, name), 0o755);
    }
  }
  await writeFile(join(fx.dir, "pyrightconfig.json"), '{ "venvPath": ".", "venv": ".venv" }\n');
  return marker;
}

async function ran(marker: string): Promise<string> {
  return readFile(marker, "utf8").catch(() => "");
}

describe("Python (e2e, pyright) and the interpreter it runs", { skip: skip ?? false }, () => {
  it("untrusted: no python of the repository runs, and pyright answers while it starts", async () => {
    const fx = await copyFixture("python-basic");
    const marker = await plantInterpreters(fx);
    const path = ["bin", join(fx.dir, ".venv", "bin"), process.env.PATH ?? ""].join(":");
    const h = await startScalpel({ project: fx.dir, trust: false, env: { PATH: path } });
    try {
      // The first calls arrive together, as hosts send them, while pyright is starting.
      const [r, sym] = await Promise.all([
        callOk<ReferencesResult>(h, "find_referencing_symbols", {
          name_path: "Cart/total",
          relative_path: "shop/cart.py",
        }),
        callOk<FindSymbolResult>(h, "find_symbol", { name_path_pattern: "Circle/area" }),
      ]);
      assert.equal(r.complete, true, r.incomplete_reason);
      assert.deepEqual([...new Set(sitesOf(r).map((x) => `${x.relative_path} ${x.container}`))].sort(), [
        "main.py checkout",
        "shop/cart.py with_tax",
        "shop/discount.py discount",
        "tests/test_cart.py test_total",
      ]);
      assert.deepEqual(
        sym.symbols.map((s) => s.name_path),
        ["Circle/area"],
      );
      const d = await callOk<{ complete: boolean }>(h, "get_diagnostics_for_file", {
        relative_path: "main.py",
      });
      assert.equal(d.complete, true);
      // The whole-project check runs pyright's CLI, with the server's PATH.
      const whole = await callOk<{ complete: boolean; incomplete_reason?: string }>(
        h,
        "get_project_diagnostics",
        {},
      );
      assert.equal(whole.complete, true, whole.incomplete_reason);
      assert.equal(await ran(marker), "", "no interpreter of the repository ran");
      const server = descendants(h.pid).filter((pid) => /langserver/.test(commandOf(pid)));
      assert.equal(server.length, 1, descendants(h.pid).map(commandOf).join("\n"));
      const env = (await readFile(`/proc/${server[0]}/environ`, "utf8")).split("\0");
      const entries = (env.find((e) => e.startsWith("PATH=")) ?? "").slice(5).split(":");
      assert.ok(
        entries.length > 0 && entries.every((e) => e.startsWith("/") && !e.startsWith(fx.dir)),
        entries.join(":"),
      );
    } finally {
      await h.close();
      await fx.cleanup();
    }
  });

  it("a references call sent while pyright still lists the workspace waits for it and is whole", {
    skip: fullTierCase("it holds pyright's start a second on purpose, and a pyright of its own"),
  }, async () => {
    // pyright asks the interpreter before it lists the workspace's files; one that takes a second holds
    // the listing that long. A request answered before "Found N source files" searched only the
    // open files: one site of four, marked complete (seen in a clean-clone CI run under load).
    const fx = await copyFixture("python-basic");
    const slow = join(fx.base, "slow-bin");
    await mkdir(slow, { recursive: true });
    for (const name of ["python3", "python"]) {
      await writeFile(join(slow, name), "#!/bin/sh\nsleep 1\nexit 1\n");
      await chmod(join(slow, name), 0o755);
    }
    const h = await startScalpel({ project: fx.dir, env: { PATH: `${slow}:${process.env.PATH ?? ""}` } });
    try {
      const r = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
        name_path: "Cart/total",
        relative_path: "shop/cart.py",
      });
      assert.equal(r.complete, true, r.incomplete_reason);
      assert.deepEqual([...new Set(sitesOf(r).map((x) => `${x.relative_path} ${x.container}`))].sort(), [
        "main.py checkout",
        "shop/cart.py with_tax",
        "shop/discount.py discount",
        "tests/test_cart.py test_total",
      ]);
    } finally {
      await h.close();
      await fx.cleanup();
    }
  });

  it("trusted: pyright runs the python PATH finds from the project root (so the check above can fail)", async () => {
    const fx = await copyFixture("python-basic");
    const marker = await plantInterpreters(fx);
    const h = await startScalpel({ project: fx.dir, env: { PATH: `bin:${process.env.PATH ?? ""}` } });
    try {
      const r = await callOk<FindSymbolResult>(h, "find_symbol", { name_path_pattern: "Circle/area" });
      assert.equal(r.symbols.length, 1);
      await callOk(h, "get_diagnostics_for_file", { relative_path: "main.py" });
      // pyright asks the interpreter at start; the answers above may come first.
      const deadline = Date.now() + 10_000;
      while ((await ran(marker)) === "" && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      assert.match(await ran(marker), /^bin\/python3$/m);
      // The virtualenv pyrightconfig.json names is only searched for site-packages, never run.
      assert.doesNotMatch(await ran(marker), /\.venv/);
    } finally {
      await h.close();
      await fx.cleanup();
    }
  });
});
