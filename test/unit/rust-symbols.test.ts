// normalizeRustSymbols on document symbols shaped as rust-analyzer 0.0.340 sent them for
// test/fixtures/rust-basic/src/money.rs (impl blocks: kind Object, name `impl …`, selectionRange
// on the self type, no detail).
import assert from "node:assert/strict";
import { test } from "node:test";
import { type DocumentSymbol, SymbolKind } from "vscode-languageserver-protocol";
import { normalizeRustSymbols, selfTypeName } from "../../language-servers/rust-symbols.js";
import { buildTree, containingSymbol, symbolAt, walk } from "../../src/symbols/tree.js";

const r = (l1: number, c1: number, l2: number, c2: number) => ({
  start: { line: l1, character: c1 },
  end: { line: l2, character: c2 },
});
const sym = (
  name: string,
  kind: SymbolKind,
  range: ReturnType<typeof r>,
  sel: ReturnType<typeof r>,
  children?: DocumentSymbol[],
  detail?: string,
): DocumentSymbol => ({
  name,
  kind,
  range,
  selectionRange: sel,
  ...(children ? { children } : {}),
  ...(detail ? { detail } : {}),
});

const text = [
  "pub struct Money {", // 0
  "    pub cents: i64,", // 1
  "}", // 2
  "impl Money {", // 3
  "    pub fn new(cents: i64) -> Self { Money { cents } }", // 4
  "}", // 5
  "impl From<i64> for Money {", // 6
  "    fn from(c: i64) -> Self { Money::new(c) }", // 7
  "}", // 8
  "impl From<i32> for Money {", // 9
  "    fn from(c: i32) -> Self { Money::new(c as i64) }", // 10
  "}", // 11
  "impl fmt::Display for other::Wallet<T> {", // 12
  "    fn fmt(&self) {}", // 13
  "}", // 14
].join("\n");

const symbols: DocumentSymbol[] = [
  sym("Money", SymbolKind.Struct, r(0, 0, 2, 1), r(0, 11, 0, 16), [
    sym("cents", SymbolKind.Field, r(1, 4, 1, 18), r(1, 8, 1, 13), undefined, "i64"),
  ]),
  sym("impl Money", SymbolKind.Object, r(3, 0, 5, 1), r(3, 5, 3, 10), [
    sym("new", SymbolKind.Function, r(4, 4, 4, 53), r(4, 11, 4, 14), undefined, "fn(cents: i64) -> Self"),
  ]),
  sym("impl From<i64> for Money", SymbolKind.Object, r(6, 0, 8, 1), r(6, 19, 6, 24), [
    sym("from", SymbolKind.Function, r(7, 4, 7, 44), r(7, 7, 7, 11), undefined, "fn(c: i64) -> Self"),
  ]),
  sym("impl From<i32> for Money", SymbolKind.Object, r(9, 0, 11, 1), r(9, 19, 9, 24), [
    sym("from", SymbolKind.Function, r(10, 4, 10, 51), r(10, 7, 10, 11), undefined, "fn(c: i32) -> Self"),
  ]),
  sym("impl fmt::Display for other::Wallet<T>", SymbolKind.Object, r(12, 0, 14, 1), r(12, 22, 12, 38), [
    sym("fmt", SymbolKind.Method, r(13, 4, 13, 20), r(13, 7, 13, 10)),
  ]),
];

test("impl members are addressed under their type; same names across impls are numbered", () => {
  const roots = buildTree(normalizeRustSymbols(symbols, text));
  assert.deepEqual(
    [...walk(roots)].map((n) => n.namePath),
    ["Money", "Money/cents", "Money/new", "Money/from[0]", "Money/from[1]", "Wallet", "Wallet/fmt"],
  );
});

test("the impl header stays visible in detail", () => {
  const roots = buildTree(normalizeRustSymbols(symbols, text));
  const all = [...walk(roots)];
  assert.equal(all.find((n) => n.namePath === "Money/new")?.detail, "impl Money · fn(cents: i64) -> Self");
  assert.equal(
    all.find((n) => n.namePath === "Money/from[1]")?.detail,
    "impl From<i32> for Money · fn(c: i32) -> Self",
  );
  // A type declared elsewhere: the impl block stands in for it, its header as detail.
  assert.equal(all.find((n) => n.namePath === "Wallet")?.detail, "impl fmt::Display for other::Wallet<T>");
  assert.equal(all.find((n) => n.namePath === "Wallet")?.kind, "Object");
});

test("positions in an impl block find the type and the method", () => {
  const roots = buildTree(normalizeRustSymbols(symbols, text));
  // rust-analyzer answers "implementations of a trait" with the self type in the impl header.
  assert.equal(symbolAt(roots, { line: 6, character: 20 })?.namePath, "Money");
  assert.equal(containingSymbol(roots, { line: 10, character: 30 })?.namePath, "Money/from[1]");
  assert.equal(containingSymbol(roots, { line: 4, character: 40 })?.namePath, "Money/new");
});

test("selfTypeName strips references, generics, paths and dyn", () => {
  assert.equal(selfTypeName("impl Money", "Money"), "Money");
  assert.equal(selfTypeName("impl<T> From<T> for Wrapper<T>", ""), "Wrapper");
  assert.equal(selfTypeName("impl X", "&'a mut crate::a::Money"), "Money");
  assert.equal(selfTypeName("impl dyn Shape", "dyn Shape"), "Shape");
});
