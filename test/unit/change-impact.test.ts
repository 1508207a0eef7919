/**
 * The pure parts of get_change_impact: where a declaration's signature ends (declaration-text.ts),
 * how two symbol trees of one file compare (symbol-changes.ts: signature, body, removed, added,
 * renamed, an interface's new member) and which lines a change touched (line-map.ts). Trees are
 * built the way the symbol service builds them (buildTree), from ranges found in the texts.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { type DocumentSymbol, SymbolKind } from "vscode-languageserver-protocol";
import { declarationText } from "../../src/change-impact/declaration-text.js";
import { lineMap } from "../../src/change-impact/line-map.js";
import { compareSymbols } from "../../src/change-impact/symbol-changes.js";
import { buildTree } from "../../src/symbols/tree.js";

/** A symbol spanning the lines from the one holding `start` to the next line holding `end` (0-based). */
function sym(
  text: string,
  name: string,
  kind: SymbolKind,
  start: string,
  end: string,
  children: DocumentSymbol[] = [],
): DocumentSymbol {
  const lines = text.split("\n");
  const first = lines.findIndex((l) => l.includes(start));
  const last = lines.findIndex((l, i) => i >= first && l.includes(end));
  assert.ok(first >= 0 && last >= 0, `${start}…${end}`);
  const col = lines[first]!.indexOf(start);
  const range = {
    start: { line: first, character: col },
    end: { line: last, character: lines[last]!.length },
  };
  const at = lines[first]!.indexOf(name, col);
  const selectionRange = {
    start: { line: first, character: at },
    end: { line: first, character: at + name.length },
  };
  return { name, kind, range, selectionRange, children };
}

const signature = (code: string) => {
  const [root] = buildTree([
    sym(code, "x", SymbolKind.Function, code.split("\n")[0]!.trim(), code.split("\n").at(-1)!.trim() || ""),
  ]);
  return declarationText(code, root!).signature;
};

test("a signature ends at the body's brace, at an assignment's '=' or after an arrow's '=>'", () => {
  assert.equal(
    signature("export function x(a: number): string {\n  return '{';\n}"),
    "export function x(a: number): string",
  );
  assert.equal(
    signature("export const x = (a: { b: number }) => {\n  return a;\n};"),
    "export const x = (a: { b: number }) =>",
  );
  assert.equal(signature("export const x = { a: 1 };"), "export const x");
  assert.equal(signature("export const x = 5;"), "export const x");
  assert.equal(signature("export type x = { a: string };"), "export type x = { a: string };");
  assert.equal(signature("x(a: number):   void;"), "x(a: number): void;");
  assert.equal(signature("func x(a int) (int, error) {\n\treturn 0, nil\n}"), "func x(a int) (int, error)");
  assert.equal(signature("type x struct {\n\tA int\n}"), "type x struct");
  assert.equal(signature("func x[T any](v T) T { return v }"), "func x[T any](v T) T");
});

const before = `export function greet(name: string): string {
  return name;
}
export function gone(): void {
  return;
}
export function shout(t: string): string {
  return t;
}
export function oldName(x: number): number {
  return x + 1;
}
export interface Shape {
  area(): number;
}
`;
const after = `export function greet(name: string, mark: string): string {
  return name + mark;
}
export function shout(t: string): string {
  return t + "!";
}
export function newName(x: number): number {
  return x + 1;
}
export interface Shape {
  area(): number;
  perimeter(): number;
}
export const fresh = 1;
`;

function tree(text: string, withPerimeter: boolean) {
  const fns = ["greet", "gone", "shout", "oldName", "newName"]
    .filter((n) => text.includes(`function ${n}(`))
    .map((n) => sym(text, n, SymbolKind.Function, `export function ${n}(`, "}"));
  const members = [sym(text, "area", SymbolKind.Method, "area(", "area(")];
  if (withPerimeter) members.push(sym(text, "perimeter", SymbolKind.Method, "perimeter(", "perimeter("));
  const shape = sym(text, "Shape", SymbolKind.Interface, "export interface Shape", "}", members);
  const fresh = text.includes("fresh")
    ? [sym(text, "fresh", SymbolKind.Constant, "export const fresh", "fresh")]
    : [];
  return { roots: buildTree([...fns, shape, ...fresh]), text };
}

test("two trees of a file: signature, removed, body, renamed, added, and the interface that gained a member", () => {
  const found = compareSymbols(tree(before, false), tree(after, true));
  const shown = found.symbols.map((s) => `${s.namePath} ${s.change}${s.from ? ` from ${s.from}` : ""}`);
  assert.deepEqual(shown.sort(), [
    "Shape/perimeter added",
    "fresh added",
    "gone removed",
    "greet signature",
    "newName renamed from oldName",
    "shout body",
  ]);
  assert.deepEqual(
    found.interfaces.map((i) => `${i.now.namePath} +${i.added.join(",")} -${i.removed.join(",")}`),
    ["Shape +Shape/perimeter -"],
  );
  // Reformatting alone is no change; a new file's symbols are all added, a gone file's all removed.
  const reformatted = before.replace("return name;", "return   name;");
  assert.deepEqual(compareSymbols(tree(before, false), tree(reformatted, false)).symbols, []);
  assert.ok(compareSymbols(null, tree(after, true)).symbols.every((s) => s.change === "added"));
  assert.ok(compareSymbols(tree(before, false), null).symbols.every((s) => s.change === "removed"));
});

test("changed lines are the new side's added lines; kept base lines map to where they are now", () => {
  const map = lineMap("a\nb\nc\nd\n", "a\nB\nc\nx\nd\n");
  assert.deepEqual([...map.changed].sort(), [1, 3]);
  assert.equal(map.toNew(0), 0);
  assert.equal(map.toNew(1), null, "b was rewritten");
  assert.equal(map.toNew(2), 2);
  assert.equal(map.toNew(3), 4);
  const added = lineMap(null, "a\nb");
  assert.deepEqual([...added.changed], [0, 1]);
  assert.equal(lineMap("a\r\nb\r\n", "a\nb\n").changed.size, 0, "line endings are no change");
});
