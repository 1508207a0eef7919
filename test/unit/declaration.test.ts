// The one declaration model: head (docs, comments directly above, attributes) and body, found the
// same way whatever range a server reports. Server ranges below are the ones measured (see the
// adapters): rust-analyzer starts at the first doc/attribute, tsserver and pyright at the first
// decorator, the Dart server after docs and metadata.
import * as assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { DocumentSymbol } from "vscode-languageserver-protocol";
import { dartDeclarations } from "../../language-servers/dart.js";
import { rustDeclarations } from "../../language-servers/rust-analyzer.js";
import { typescriptDeclarations } from "../../language-servers/typescript-symbols.js";
import { deleteEdit, insertBeforeEdit, replaceBodyEdit, siteOf } from "../../src/edits/symbol-sites.js";
import {
  type DeclarationSyntax,
  declarationBounds,
  genericDeclarationSyntax,
  markDeclarations,
  replacesHead,
} from "../../src/languages/declaration.js";
import { sliceRange, toSymbolResult } from "../../src/symbols/result.js";
import { buildTree } from "../../src/symbols/tree.js";
import { applyTextEdits, positionAt } from "../../src/text/positions.js";

/** The range from the start of `from` to the end of `to` (both unique in `text`). */
function span(text: string, from: string, to: string) {
  const a = text.indexOf(from);
  const b = text.indexOf(to, a);
  assert.ok(a >= 0 && b >= 0, `${from} / ${to}`);
  return { start: positionAt(text, a), end: positionAt(text, b + to.length) };
}

function lineOf(text: string, needle: string): number {
  return positionAt(text, text.indexOf(needle)).line;
}

function bounds(text: string, from: string, to: string, syn: DeclarationSyntax) {
  const b = declarationBounds(text, span(text, from, to), syn);
  return { head: b.head.line, headCol: b.head.character, body: b.body.line, bodyCol: b.body.character };
}

describe("declarationBounds", () => {
  test("Rust: the server's range starts at the docs; the body starts after docs and attributes", () => {
    const text = [
      "#![deny(missing_docs)]",
      "//! Crate doc.",
      "/// Doc one.",
      "/// Doc two.",
      "#[inline]",
      "#[cfg_attr(",
      '    feature = "x]",',
      "    derive(Debug)",
      ")]",
      "pub fn documented() -> u32 {",
      "    1",
      "}",
    ].join("\n");
    const b = bounds(text, "/// Doc one.", "\n}", rustDeclarations);
    assert.deepEqual(b, { head: 2, headCol: 0, body: 9, bodyCol: 0 }, "inner //! and #![..] stay outside");
  });

  test("TypeScript: the range starts at the decorator; JSDoc above is the head, the body follows decorators", () => {
    const text = [
      "class S {",
      "  /** Method doc */",
      "  // plain comment",
      "  @deco({ a: [1] }) @other",
      "  format(): string {",
      '    return "x";',
      "  }",
      "}",
    ].join("\n");
    const b = bounds(text, "@deco", '"x";\n  }', typescriptDeclarations);
    assert.deepEqual(b, { head: 1, headCol: 2, body: 4, bodyCol: 2 });
  });

  test("Dart: the range starts after `@override` on the same line; docs and annotation are the head", () => {
    const text = ["class A {", "  /// Doc", "  @override void f() {", "    g();", "  }", "}"].join("\n");
    const b = bounds(text, "void f()", "g();\n  }", dartDeclarations);
    assert.deepEqual(b, { head: 1, headCol: 2, body: 2, bodyCol: 12 });
  });

  test("a blank line ends the head; code above is never part of it", () => {
    const text = ["// section", "", "const a = 1;", "/** doc */", "function f() {}"].join("\n");
    assert.equal(bounds(text, "function f", "{}", typescriptDeclarations).head, 3);
    const text2 = ["// section", "", "function f() {}"].join("\n");
    assert.equal(bounds(text2, "function f", "{}", typescriptDeclarations).head, 2);
  });

  test("a declaration after other code on its line has no head", () => {
    const text = ["/** doc */", "const a = 1, b = 2;"].join("\n");
    const b = bounds(text, "b = 2", "2", typescriptDeclarations);
    assert.deepEqual(b, { head: 1, headCol: 13, body: 1, bodyCol: 13 });
  });

  test("`#` is a comment for the generic syntax but not for TypeScript (`#private` fields)", () => {
    const text = ["class A {", "  #count = 0;", "  m() {}", "}"].join("\n");
    assert.equal(bounds(text, "m()", "{}", typescriptDeclarations).head, 2);
    const py = ["# comment", "@decorator(x)", "def f():", "    pass"].join("\n");
    assert.deepEqual(bounds(py, "@decorator", "pass", genericDeclarationSyntax), {
      head: 0,
      headCol: 0,
      body: 2,
      bodyCol: 0,
    });
  });
});

describe("replacesHead: new code replaces the head when it brings docs or attributes", () => {
  const docs = "/// Doc.\n#[inline]\n";
  test("per language", () => {
    assert.equal(replacesHead("/// doc\nfn f() {}", docs, rustDeclarations), true);
    assert.equal(replacesHead("  #[inline]\nfn f() {}", docs, rustDeclarations), true);
    assert.equal(replacesHead("#![allow(x)]\nfn f() {}", docs, rustDeclarations), false, "inner attribute");
    assert.equal(replacesHead("fn f() {}", docs, rustDeclarations), false);
    assert.equal(replacesHead("/** doc */\nf() {}", "", typescriptDeclarations), true);
    assert.equal(replacesHead("@deco\nf() {}", "/** d */\n", typescriptDeclarations), true);
    assert.equal(replacesHead("f() {}", "/** d */\n", typescriptDeclarations), false);
  });

  test("plain comments replace a head of plain comments, never docs or attributes", () => {
    assert.equal(
      replacesHead("// note\nfn f() {}", docs, rustDeclarations),
      false,
      "docs stay, note goes below",
    );
    assert.equal(
      replacesHead("// note\nfn f() {}", "// note\n", rustDeclarations),
      true,
      "re-sent: no duplicate",
    );
    assert.equal(replacesHead("// note\nfn f() {}", "", rustDeclarations), true);
  });
});

describe("symbol edits by the model", () => {
  const rust = [
    "/// Adds one.",
    "#[inline]",
    "pub fn add_one(x: u32) -> u32 {",
    "    x + 1",
    "}",
    "",
    "/// Tests doc",
    "#[cfg(test)]",
    "mod tests {",
    "    /// A test.",
    "    #[test]",
    "    fn works() {",
    "        assert_eq!(super::add_one(1), 2);",
    "    }",
    "}",
    "",
  ].join("\n");
  // Ranges as rust-analyzer reports them: from the first doc comment to the closing brace.
  const symbols: DocumentSymbol[] = [
    {
      name: "add_one",
      kind: 12,
      range: span(rust, "/// Adds one.", "x + 1\n}"),
      selectionRange: span(rust, "add_one", "add_one"),
    },
    {
      name: "tests",
      kind: 2,
      range: span(rust, "/// Tests doc", "    }\n}"),
      selectionRange: span(rust, "tests {", "tests"),
      children: [
        {
          name: "works",
          kind: 12,
          range: span(rust, "/// A test.", "2);\n    }"),
          selectionRange: span(rust, "works", "works"),
        },
      ],
    },
  ];
  const roots = buildTree(markDeclarations(symbols, rust, rustDeclarations));
  const addOne = roots[0]!;
  const works = roots[1]!.children[0]!;

  const replace = (node: typeof addOne, body: string) =>
    applyTextEdits(rust, [replaceBodyEdit(siteOf(rust, node, rustDeclarations), node, body)]);

  test("replace without docs keeps docs and attributes; the unindented body lands by structure", () => {
    const out = replace(works, "fn works() {\nlet v = vec![1];\nassert_eq!(v.len(), 1);\n}");
    assert.ok(
      out.includes(
        "    /// A test.\n    #[test]\n    fn works() {\n        let v = vec![1];\n        assert_eq!(v.len(), 1);\n    }\n}",
      ),
      out,
    );
    const top = replace(addOne, "pub fn add_one(x: u32) -> u32 {\nx.wrapping_add(1)\n}");
    assert.ok(
      top.startsWith("/// Adds one.\n#[inline]\npub fn add_one(x: u32) -> u32 {\n    x.wrapping_add(1)\n}\n"),
    );
  });

  test("replace with own docs replaces docs and attributes", () => {
    const out = replace(
      addOne,
      "/// Adds one, saturating.\npub fn add_one(x: u32) -> u32 {\nx.saturating_add(1)\n}",
    );
    assert.ok(
      out.startsWith(
        "/// Adds one, saturating.\npub fn add_one(x: u32) -> u32 {\n    x.saturating_add(1)\n}\n\n/// Tests doc",
      ),
      out,
    );
    assert.ok(!out.includes("#[inline]"));
  });

  test("insert before goes above the docs; delete takes docs and attributes", () => {
    const ins = applyTextEdits(rust, [
      insertBeforeEdit(siteOf(rust, works, rustDeclarations), "fn helper() {}"),
    ]);
    assert.ok(ins.includes("mod tests {\n    fn helper() {}\n    /// A test.\n    #[test]\n"), ins);
    const del = applyTextEdits(rust, [deleteEdit(siteOf(rust, addOne, rustDeclarations), addOne)]);
    assert.ok(del.startsWith("/// Tests doc\n"), del);
  });

  test("find_symbol's body begins at the head; start_line is the server's range start", () => {
    assert.ok(sliceRange(rust, works).startsWith("    /// A test.\n    #[test]\n    fn works()"));
    assert.equal(
      toSymbolResult(works, "src/lib.rs", { depth: 0 }).start_line,
      lineOf(rust, "/// A test.") + 1,
    );
  });
});
