import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { type DocumentSymbol, SymbolKind } from "vscode-languageserver-protocol";
import { buildTree, containingSymbol, hierarchyFromFlat, symbolAt, walk } from "../../src/symbols/tree.js";

const r = (l1: number, c1: number, l2: number, c2: number) => ({
  start: { line: l1, character: c1 },
  end: { line: l2, character: c2 },
});
const sym = (
  name: string,
  kind: SymbolKind,
  range: ReturnType<typeof r>,
  children: DocumentSymbol[] = [],
): DocumentSymbol => ({
  name,
  kind,
  range,
  selectionRange: {
    start: range.start,
    end: { line: range.start.line, character: range.start.character + name.length },
  },
  children,
});

// Children deliberately out of source order, as tsserver sends them (sorted by name).
const symbols = [
  sym("Money", SymbolKind.Class, r(0, 0, 20, 1), [
    sym("times", SymbolKind.Method, r(10, 2, 14, 3), [sym("factor", SymbolKind.Constant, r(11, 4, 11, 20))]),
    sym("add", SymbolKind.Method, r(2, 2, 4, 3)),
    sym("add", SymbolKind.Method, r(5, 2, 8, 3)),
  ]),
  sym("main", SymbolKind.Function, r(22, 0, 30, 1)),
];

describe("symbol trees", () => {
  const tree = buildTree(symbols);

  test("children come in source order and same-named siblings are numbered", () => {
    const money = tree[0]!;
    assert.deepEqual(
      money.children.map((c) => c.namePath),
      ["Money/add[0]", "Money/add[1]", "Money/times"],
    );
    assert.equal(money.children[0]!.kind, "Method");
  });

  test("constants inside a method are locals and never containers", () => {
    const factor = [...walk(tree)].find((n) => n.name === "factor")!;
    assert.ok(factor.local);
    const inside = containingSymbol(tree, { line: 11, character: 10 });
    assert.equal(inside?.namePath, "Money/times");
  });

  test("top-level code has no containing symbol", () => {
    assert.equal(containingSymbol(tree, { line: 21, character: 0 }), null);
  });

  test("symbolAt finds a declaration by its identifier", () => {
    assert.equal(symbolAt(tree, { line: 5, character: 3 })?.namePath, "Money/add[1]");
  });

  test("flat symbol information is rebuilt by containment", () => {
    const flat = hierarchyFromFlat([
      { name: "add", kind: SymbolKind.Method, location: { uri: "file:///a.ts", range: r(2, 2, 4, 3) } },
      { name: "Money", kind: SymbolKind.Class, location: { uri: "file:///a.ts", range: r(0, 0, 20, 1) } },
      { name: "main", kind: SymbolKind.Function, location: { uri: "file:///a.ts", range: r(22, 0, 30, 1) } },
    ]);
    assert.deepEqual(
      flat.map((s) => [s.name, (s.children ?? []).map((c) => c.name)]),
      [
        ["Money", ["add"]],
        ["main", []],
      ],
    );
  });
});
