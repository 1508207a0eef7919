import * as assert from "node:assert/strict";
import { test } from "node:test";
import { type DocumentSymbol, SymbolKind } from "vscode-languageserver-protocol";
import { markTypeAliases, normalizeTypescriptSymbols } from "../../language-servers/typescript-symbols.js";
import { buildTree, type SymbolNode } from "../../src/symbols/tree.js";
import { allLines } from "../../src/text/lines.js";

function sym(name: string, line: number, children?: DocumentSymbol[]): DocumentSymbol {
  const range = { start: { line, character: 0 }, end: { line: line + 1, character: 0 } };
  return { name, kind: 12, range, selectionRange: range, ...(children ? { children } : {}) };
}

const names = (nodes: SymbolNode[]): unknown[] =>
  nodes.map((n) => (n.children.length ? { [n.name]: names(n.children) } : n.name));

test("callbacks vanish with all they declare; IIFEs and class expressions hand theirs up; source order", () => {
  const input = [
    sym("zeta", 1),
    sym('describe("parse") callback', 5, [sym("helper", 7), sym("result", 6)]),
    sym("<function>", 10, [sym("deep", 12), sym("umd", 11, [sym("xs.map() callback", 11, [sym("x", 11)])])]),
    sym("alpha", 20, [sym("items.map() callback", 22, [sym("y", 22)]), sym("local", 21)]),
    sym("<class>", 30, [sym("method", 31)]),
  ];
  assert.deepEqual(names(buildTree(normalizeTypescriptSymbols(input))), [
    "zeta",
    "umd",
    "deep",
    { alpha: ["local"] },
    "method",
  ]);
});

test("quoted property names containing 'callback' are kept", () => {
  const out = normalizeTypescriptSymbols([sym('"on callback"', 1)]);
  assert.equal(out[0]?.name, '"on callback"');
  assert.equal(out[0]?.anonymous, undefined);
});

test("type aliases, which tsls reports as Variable, become TypeParameter; variables stay", () => {
  const text = [
    "export type Day = 0 | 1;",
    "type Opts<T> = { x: T };",
    "export const typeName = 1;",
    "declare type Ambient = string;",
    "namespace N {",
    "  export type Inner = number;",
    "}",
  ].join("\n");
  const at = (name: string, line: number, character = 0, children?: DocumentSymbol[]): DocumentSymbol => {
    const range = { start: { line, character }, end: { line, character: character + 20 } };
    const kind = children ? SymbolKind.Namespace : SymbolKind.Variable;
    return { name, kind, range, selectionRange: range, ...(children ? { children } : {}) };
  };
  const out = markTypeAliases(
    [
      at("Day", 0),
      at("Opts", 1),
      at("typeName", 2, 13),
      at("Ambient", 3),
      at("N", 4, 0, [at("Inner", 5, 2)]),
    ],
    allLines(text),
  );
  const kinds = (list: DocumentSymbol[]): unknown[] =>
    list.map((s) => (s.children ? { [s.name]: kinds(s.children) } : [s.name, s.kind]));
  assert.deepEqual(kinds(out), [
    ["Day", SymbolKind.TypeParameter],
    ["Opts", SymbolKind.TypeParameter],
    ["typeName", SymbolKind.Variable],
    ["Ambient", SymbolKind.TypeParameter],
    { N: [["Inner", SymbolKind.TypeParameter]] },
  ]);
});
