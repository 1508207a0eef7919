import * as assert from "node:assert/strict";
import { describe, test } from "node:test";
import { rustDeclarations } from "../../language-servers/rust-analyzer.js";
import { typescriptDeclarations } from "../../language-servers/typescript-symbols.js";
import { detectIndentUnit, indentationOf, reindent, structuralIndent } from "../../src/text/indent.js";

const ts = { unit: "  ", lexical: typescriptDeclarations };
const rs = { unit: "    ", lexical: rustDeclarations };

describe("reindent (relative)", () => {
  test("an unindented first line with an indented rest lands at the target indentation", () => {
    assert.equal(reindent("foo() {\n  return 1;\n}", "    ", "\n"), "    foo() {\n      return 1;\n    }");
  });

  test("common indentation is removed first; blank lines stay empty", () => {
    assert.equal(reindent("\t\tif (x) {\n\t\t\ty();\n\n\t\t}", "\t", "\n"), "\tif (x) {\n\t\ty();\n\n\t}");
  });

  test("a body copied from the declaration's column (first line unindented) is recognised", () => {
    assert.equal(reindent("foo() {\n    return 1;\n  }", "  ", "\n"), "  foo() {\n    return 1;\n  }");
  });

  test("python-style body without a closing line is a plain block", () => {
    assert.equal(reindent("def f():\n    return 1", "    ", "\n"), "    def f():\n        return 1");
  });

  test("line endings become the file's", () => {
    assert.equal(reindent("a\nb\r\nc", "", "\r\n"), "a\r\nb\r\nc");
  });

  test("indentationOf", () => {
    assert.equal(indentationOf("  \tx "), "  \t");
    assert.equal(indentationOf("x"), "");
  });
});

describe("reindent (structural, for bodies with no indentation at all)", () => {
  test("the issue's example: inner lines go one level deeper than the declaration", () => {
    assert.equal(
      reindent("format(): string {\nreturn x;\n}", "  ", "\n", ts),
      "  format(): string {\n    return x;\n  }",
    );
  });

  test("every nesting depth, closers dedent, `} else {` sits at its opener's level", () => {
    const body = [
      "run(xs: number[]): number {",
      "let n = 0;",
      "for (const x of xs) {",
      "if (x > 0) {",
      "n += [",
      "x,",
      "].length;",
      "} else {",
      "n--;",
      "}",
      "}",
      "return n;",
      "}",
    ].join("\n");
    assert.equal(
      reindent(body, "    ", "\n", ts),
      [
        "    run(xs: number[]): number {",
        "      let n = 0;",
        "      for (const x of xs) {",
        "        if (x > 0) {",
        "          n += [",
        "            x,",
        "          ].length;",
        "        } else {",
        "          n--;",
        "        }",
        "      }",
        "      return n;",
        "    }",
      ].join("\n"),
    );
  });

  test("brackets opened on one line indent once; `});` closes them together", () => {
    const body = ["f() {", "xs.map((v) => {", "return g(v,", "1);", "});", "}"].join("\n");
    assert.equal(
      reindent(body, "", "\n", ts),
      ["f() {", "  xs.map((v) => {", "    return g(v,", "      1);", "  });", "}"].join("\n"),
    );
  });

  test("brackets in strings, template literals and comments do not count", () => {
    const body = [
      "f(): string {",
      'const a = "{[(";',
      "const b = '}';",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: source text under test
      "const c = `${a} {`;",
      "// {",
      "/* ( */ const d = 1;",
      "return a + b + c;",
      "}",
    ].join("\n");
    assert.equal(
      reindent(body, "", "\n", ts),
      [
        "f(): string {",
        '  const a = "{[(";',
        "  const b = '}';",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: source text under test
        "  const c = `${a} {`;",
        "  // {",
        "  /* ( */ const d = 1;",
        "  return a + b + c;",
        "}",
      ].join("\n"),
    );
  });

  test("lines inside a multi-line template literal are data: kept exactly", () => {
    const body = ["f() {", "const t = `", "line {", "}`;", "return t;", "}"].join("\n");
    assert.equal(
      reindent(body, "", "\n", ts),
      ["f() {", "  const t = `", "line {", "}`;", "  return t;", "}"].join("\n"),
    );
  });

  test("a block comment's star lines get the JSDoc shape", () => {
    const body = ["/**", "* Doc {", "*/", "f() {", "return 1;", "}"].join("\n");
    assert.equal(
      reindent(body, "  ", "\n", ts),
      ["  /**", "   * Doc {", "   */", "  f() {", "    return 1;", "  }"].join("\n"),
    );
  });

  test("Rust: char literals count as literals, lifetimes do not open anything", () => {
    const body = [
      "fn pick<'a>(s: &'a str) -> char {",
      "let open = '{';",
      "let esc = '\\'';",
      "match s.len() {",
      "0 => open,",
      "_ => esc,",
      "}",
      "}",
    ].join("\n");
    assert.equal(
      reindent(body, "    ", "\n", rs),
      [
        "    fn pick<'a>(s: &'a str) -> char {",
        "        let open = '{';",
        "        let esc = '\\'';",
        "        match s.len() {",
        "            0 => open,",
        "            _ => esc,",
        "        }",
        "    }",
      ].join("\n"),
    );
  });

  test("Rust: the clauses after a lone `where` sit one level deeper, the body's `{` level with it", () => {
    const body = [
      "pub fn from_reader<R, T>(rdr: R) -> Result<T>",
      "where",
      "R: Read,",
      "T: Fn(u8) -> u8,",
      "{",
      "let x = [0u8; 1];",
      "x.len()",
      "}",
    ].join("\n");
    assert.equal(
      reindent(body, "    ", "\n", rs),
      [
        "    pub fn from_reader<R, T>(rdr: R) -> Result<T>",
        "    where",
        "        R: Read,",
        "        T: Fn(u8) -> u8,",
        "    {",
        "        let x = [0u8; 1];",
        "        x.len()",
        "    }",
      ].join("\n"),
    );
  });

  test("a tabs file gets tabs", () => {
    assert.equal(
      reindent("fn f() {\nif x {\ny();\n}\n}", "\t", "\n", { unit: "\t", lexical: rustDeclarations }),
      "\tfn f() {\n\t\tif x {\n\t\t\ty();\n\t\t}\n\t}",
    );
  });

  test("CRLF bodies and files: endings become the file's, structure is the same", () => {
    assert.equal(reindent("f() {\r\nreturn 1;\r\n}", "  ", "\r\n", ts), "  f() {\r\n    return 1;\r\n  }");
  });

  test("one line, or lines that all have some indentation, are moved relatively (unchanged rule)", () => {
    assert.equal(reindent("f() { return 1; }", "  ", "\n", ts), "  f() { return 1; }");
    assert.equal(reindent("  a {\n  b\n  }", "", "\n", ts), "a {\nb\n}");
  });

  test("structuralIndent never goes below depth 0 on unbalanced closers", () => {
    assert.deepEqual(structuralIndent(["}", "x", "{", "y"], "  ", typescriptDeclarations), [
      "}",
      "x",
      "{",
      "  y",
    ]);
  });
});

describe("detectIndentUnit", () => {
  test("the most common step of the file", () => {
    assert.equal(detectIndentUnit("a {\n  b {\n    c\n  }\n}\n", "    "), "  ");
    assert.equal(detectIndentUnit("fn a() {\n    b();\n}\n", "  "), "    ");
    assert.equal(detectIndentUnit("a {\n\tb {\n\t\tc\n\t}\n}\n", "  "), "\t");
  });

  test("JSDoc star lines do not make the unit one space; a flat file uses the fallback", () => {
    assert.equal(detectIndentUnit("/**\n * a\n * b\n */\nf {\n    x\n}\n", "  "), "    ");
    assert.equal(detectIndentUnit("a\nb\r\nc\r\n", "    "), "    ");
  });
});
