// @backends tsserver native:full
/**
 * The one declaration model over the built CLI, against real servers (tsls and rust-analyzer):
 * replacing a documented, attributed symbol's body without its docs keeps docs and attributes,
 * new code that brings its own docs replaces them, and a body sent with no indentation at all
 * lands indented by its structure at every depth. The result must still build: `tsc --noEmit`,
 * and `cargo check` on a `#![deny(missing_docs)]` crate (a dropped doc comment fails it).
 */
import { strict as assert } from "node:assert";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  cargoCheck,
  copyFixture,
  makeTempProject,
  readText,
  repoRoot,
  runTsc,
  type TempProject,
} from "../helpers/fixtures.js";
import {
  callOk,
  type EditResult,
  type FindSymbolResult,
  type ScalpelHandle,
  serveFixture,
  startScalpel,
  stopServing,
} from "../helpers/mcp.js";
import { otherLanguageOnNativePass, rustAnalyzerMissing } from "../helpers/servers.js";

/** The lines of `text` from the one containing `from` through the one containing `to`. */
function block(text: string, from: string, to: string): string {
  const lines = text.split("\n");
  const a = lines.findIndex((l) => l.includes(from));
  const b = lines.findIndex((l, i) => i >= a && l.includes(to));
  assert.ok(a >= 0 && b >= a, `block ${from} … ${to} not found in:\n${text}`);
  return lines.slice(a, b + 1).join("\n");
}

describe("declaration model, TypeScript (e2e, tsls)", () => {
  let fx: TempProject;
  let h: ScalpelHandle;
  const file = "src/service.ts";

  before(async () => {
    ({ fx, h } = await serveFixture("ts-decls"));
  });
  after(() => stopServing(h, fx));

  const replace = (name_path: string, body: string) =>
    callOk<EditResult>(h, "replace_symbol_body", { name_path, relative_path: file, body });

  it("find_symbol's body is the whole declaration, JSDoc first (round-trips through replace)", async () => {
    const r = await callOk<FindSymbolResult>(h, "find_symbol", {
      name_path_pattern: "Service/format",
      relative_path: file,
      include_body: true,
    });
    const text = await readText(fx.dir, file);
    const s = r.symbols[0]!;
    assert.equal(
      s.body,
      [
        "  /**",
        "   * Formats the name.",
        "   * @returns the formatted name",
        "   */",
        "  @logged",
        "  format(): string {",
        "    return this.name;",
        "  }",
      ].join("\n"),
    );
    // start_line stays where tsserver's range starts (the decorator), as the contract says.
    assert.equal(s.start_line, text.split("\n").indexOf("  @logged") + 1);
  });

  it("a decorated method's body replaced without its JSDoc: JSDoc and decorator kept, structure indented", async () => {
    await replace(
      "Service/format",
      'format(): string {\nif (this.name === "") {\nreturn "(none)";\n}\nreturn this.name.toUpperCase();\n}',
    );
    const text = await readText(fx.dir, file);
    assert.equal(
      block(text, "   * Formats the name.", "toUpperCase"),
      [
        "   * Formats the name.",
        "   * @returns the formatted name",
        "   */",
        "  @logged",
        "  format(): string {",
        '    if (this.name === "") {',
        '      return "(none)";',
        "    }",
        "    return this.name.toUpperCase();",
      ].join("\n"),
    );
    assert.ok(text.includes("    return this.name.toUpperCase();\n  }\n}\n"), text);
  });

  it("an exported function with JSDoc keeps it", async () => {
    await replace(
      "add",
      "export function add(a: number, b: number): number {\nconst sum = a + b;\nreturn sum;\n}",
    );
    const text = await readText(fx.dir, file);
    assert.ok(
      text.includes(
        "/**\n * Adds two numbers.\n * Documented and exported.\n */\nexport function add(a: number, b: number): number {\n  const sum = a + b;\n  return sum;\n}\n",
      ),
      text,
    );
  });

  it("depth 3 (namespace in namespace): every nesting level lands one unit deeper", async () => {
    await replace(
      "Outer/Inner/deep",
      "export function deep(x: number): number {\nconst pick = [x, -x].map((v) => {\nreturn v;\n});\nif (x < 0) {\nreturn pick[1] ?? 0;\n}\nreturn x;\n}",
    );
    const text = await readText(fx.dir, file);
    assert.ok(
      text.includes(
        [
          "    /** Depth-3 function. */",
          "    export function deep(x: number): number {",
          "      const pick = [x, -x].map((v) => {",
          "        return v;",
          "      });",
          "      if (x < 0) {",
          "        return pick[1] ?? 0;",
          "      }",
          "      return x;",
          "    }",
          "  }",
          "}",
        ].join("\n"),
      ),
      text,
    );
  });

  it("new code with its own JSDoc replaces the old one (and the decorator when it brings one)", async () => {
    await replace(
      "add",
      "/** Sums. */\nexport function add(a: number, b: number): number {\nreturn a + b;\n}",
    );
    let text = await readText(fx.dir, file);
    assert.ok(text.includes("\n/** Sums. */\nexport function add("), text);
    assert.ok(!text.includes("Adds two numbers"), text);
    await replace("Service/format", "/** Formats. */\n@logged\nformat(): string {\nreturn this.name;\n}");
    text = await readText(fx.dir, file);
    assert.ok(
      text.includes("\n  /** Formats. */\n  @logged\n  format(): string {\n    return this.name;\n  }\n"),
      text,
    );
    assert.ok(!text.includes("Formats the name"), text);
    assert.equal((text.match(/@logged/g) ?? []).length, 1, text);
  });

  it("find_symbol's body sent back edited lands once: no doubled JSDoc or plain comment", async () => {
    for (const name of ["Service/format", "mul"]) {
      const r = await callOk<FindSymbolResult>(h, "find_symbol", {
        name_path_pattern: name,
        relative_path: file,
        include_body: true,
      });
      const body = r.symbols[0]!.body!;
      const edited = body.replace(/return (.*);/, "return ($1);");
      assert.notEqual(edited, body);
      await replace(name, edited);
      const text = await readText(fx.dir, file);
      assert.ok(text.includes(`${edited}\n`), text);
      const firstLine = body.split("\n")[0]!;
      assert.equal(text.split(firstLine).length - 1, 1, `'${firstLine}' appears once:\n${text}`);
    }
  });

  it("the project still type-checks", () => {
    const r = runTsc(fx.dir);
    assert.equal(r.status, 0, r.output);
  });
});

const skip = rustAnalyzerMissing() ?? otherLanguageOnNativePass();
if (skip) process.stdout.write(`# SKIP rust declaration e2e: ${skip}\n`);

describe("declaration model, Rust (e2e, rust-analyzer)", { skip: skip ?? false }, () => {
  let fx: TempProject;
  let h: ScalpelHandle;
  const file = "src/lib.rs";

  before(async () => {
    fx = await copyFixture("rust-decls");
    h = await startScalpel({ project: fx.dir, env: { CARGO_TARGET_DIR: join(fx.dir, "target") } });
  });
  after(() => stopServing(h, fx));

  const replace = (name_path: string, body: string) =>
    callOk<EditResult>(h, "replace_symbol_body", { name_path, relative_path: file, body });

  it("`///` + `#[inline]` fn: docs and attribute kept, body indented", async () => {
    await replace("add_one", "pub fn add_one(x: u32) -> u32 {\nif x == u32::MAX {\nreturn x;\n}\nx + 1\n}");
    const text = await readText(fx.dir, file);
    assert.ok(
      text.includes(
        [
          "/// Adds one to `x`.",
          "///",
          "/// The doc and the attribute survive a body replacement.",
          "#[inline]",
          "pub fn add_one(x: u32) -> u32 {",
          "    if x == u32::MAX {",
          "        return x;",
          "    }",
          "    x + 1",
          "}",
        ].join("\n"),
      ),
      text,
    );
  });

  it("`#[derive]` struct: docs and derive kept, fields indented", async () => {
    await replace(
      "Point",
      "pub struct Point {\n/// Horizontal position.\npub x: i32,\n/// Vertical position.\npub y: i32,\n/// Depth.\npub z: i32,\n}",
    );
    const text = await readText(fx.dir, file);
    assert.ok(
      text.includes(
        "/// A point on a grid.\n#[derive(Debug, Clone, PartialEq)]\npub struct Point {\n    /// Horizontal position.\n    pub x: i32,\n    /// Vertical position.\n    pub y: i32,\n    /// Depth.\n    pub z: i32,\n}\n",
      ),
      text,
    );
  });

  it("impl method with docs and `#[must_use]`: kept, at the impl's depth", async () => {
    await replace("Point/sum", "pub fn sum(&self) -> i32 {\nself.x + self.y + self.z\n}");
    const text = await readText(fx.dir, file);
    assert.ok(
      text.includes(
        "impl Point {\n    /// The sum of both coordinates.\n    #[must_use]\n    pub fn sum(&self) -> i32 {\n        self.x + self.y + self.z\n    }\n}\n",
      ),
      text,
    );
  });

  it("`#[test] fn` in a documented `#[cfg(test)] mod`: both heads kept", async () => {
    await replace(
      "tests/adds",
      "fn adds() {\nfor x in [1u32, 2] {\nassert_eq!(super::add_one(x), x + 1);\n}\n}",
    );
    const text = await readText(fx.dir, file);
    assert.ok(
      text.includes(
        [
          "/// Unit tests.",
          "#[cfg(test)]",
          "mod tests {",
          "    /// Checks add_one.",
          "    #[test]",
          "    fn adds() {",
          "        for x in [1u32, 2] {",
          "            assert_eq!(super::add_one(x), x + 1);",
          "        }",
          "    }",
          "}",
        ].join("\n"),
      ),
      text,
    );
  });

  it("depth 3 (mod in mod): every nesting level lands one unit deeper", async () => {
    await replace("outer/inner/deep", "pub fn deep(x: u32) -> u32 {\nmatch x {\n0 => {\n1\n}\n_ => x,\n}\n}");
    const text = await readText(fx.dir, file);
    assert.ok(
      text.includes(
        [
          "        /// Depth-3 function.",
          "        pub fn deep(x: u32) -> u32 {",
          "            match x {",
          "                0 => {",
          "                    1",
          "                }",
          "                _ => x,",
          "            }",
          "        }",
          "    }",
          "}",
        ].join("\n"),
      ),
      text,
    );
  });

  it("the crate still builds with #![deny(missing_docs)]", () => {
    const r = cargoCheck(fx.dir, ["--all-targets"]);
    assert.equal(r.status, 0, r.output);
  });

  it("new code with its own docs replaces docs and attributes", async () => {
    await replace(
      "add_one",
      "/// Adds one, saturating.\n#[must_use]\npub fn add_one(x: u32) -> u32 {\nx.saturating_add(1)\n}",
    );
    const text = await readText(fx.dir, file);
    assert.ok(
      text.includes(
        "#![deny(missing_docs)]\n\n/// Adds one, saturating.\n#[must_use]\npub fn add_one(x: u32) -> u32 {\n    x.saturating_add(1)\n}\n",
      ),
      text,
    );
    assert.ok(!text.includes("#[inline]") && !text.includes("survive"), text);
    const r = cargoCheck(fx.dir, ["--all-targets"]);
    assert.equal(r.status, 0, r.output);
  });
});

describe("declaration model, a server declared in project.yml (e2e, pyright, generic syntax)", {
  skip: otherLanguageOnNativePass() ?? false,
}, () => {
  let tmp: TempProject;
  let h: ScalpelHandle;
  const file = "app/svc.py";
  const pyright = join(repoRoot, "node_modules", ".bin", "pyright-langserver");

  before(async () => {
    tmp = await makeTempProject("scalpel-py-decls-");
    await mkdir(join(tmp.dir, "app"), { recursive: true });
    await mkdir(join(tmp.dir, ".scalpel"), { recursive: true });
    await writeFile(join(tmp.dir, "pyrightconfig.json"), '{ "include": ["app"] }\n');
    await writeFile(
      join(tmp.dir, ".scalpel", "project.yml"),
      `language_servers:\n  python:\n    command: ${JSON.stringify(pyright)}\n    args: ["--stdio"]\n    extensions: [".py"]\n`,
    );
    await writeFile(
      join(tmp.dir, file),
      [
        "def logged(f):",
        "    return f",
        "",
        "",
        "class Service:",
        "    # Formats the name.",
        "    @logged",
        "    def format(self) -> str:",
        '        return "x"',
        "",
      ].join("\n"),
    );
    h = await startScalpel({ project: tmp.dir });
  });
  after(() => stopServing(h, tmp));

  it("a decorated method keeps its comment and decorator; its own decorator replaces the decorator only", async () => {
    await callOk<EditResult>(h, "replace_symbol_body", {
      name_path: "Service/format",
      relative_path: file,
      body: 'def format(self) -> str:\n    return "y"',
    });
    let text = await readText(tmp.dir, file);
    assert.ok(
      text.endsWith(
        'class Service:\n    # Formats the name.\n    @logged\n    def format(self) -> str:\n        return "y"\n',
      ),
      text,
    );
    await callOk<EditResult>(h, "replace_symbol_body", {
      name_path: "Service/format",
      relative_path: file,
      body: '@staticmethod\ndef format() -> str:\n    return "z"',
    });
    text = await readText(tmp.dir, file);
    assert.ok(
      // Comments above stay: a body find_symbol shows without a long doc comment must round-trip.
      text.endsWith(
        'class Service:\n    # Formats the name.\n    @staticmethod\n    def format() -> str:\n        return "z"\n',
      ),
      text,
    );
  });
});
