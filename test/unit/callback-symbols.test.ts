// The symbol tree's rule for every language: what an anonymous callback declares is no symbol and
// never a containing symbol (issue #9: 15 of 41 date-fns `startOfWeek` test references were
// "contained" by a callback's `const result`).
import assert from "node:assert/strict";
import { test } from "node:test";
import { type DocumentSymbol, SymbolKind } from "vscode-languageserver-protocol";
import { typescriptAdapter } from "../../language-servers/typescript.js";
import type { LanguageAdapter } from "../../src/languages/adapter.js";
import type { NormalizedSymbol } from "../../src/languages/normalized-symbol.js";
import { isTestPath } from "../../src/languages/test-files.js";
import { buildTree, containingSymbol, walk } from "../../src/symbols/tree.js";

const r = (l1: number, c1: number, l2: number, c2: number) => ({
  start: { line: l1, character: c1 },
  end: { line: l2, character: c2 },
});
const sym = (
  name: string,
  kind: SymbolKind,
  range: ReturnType<typeof r>,
  children: NormalizedSymbol[] = [],
  anonymous = false,
): NormalizedSymbol => ({
  name,
  kind,
  range,
  selectionRange: {
    start: range.start,
    end: { line: range.start.line, character: range.start.character + 1 },
  },
  children: children as DocumentSymbol[],
  ...(anonymous ? { anonymous: true } : {}),
});

// 0 import …
// 1 export function startOfWeek() { … }            (1–5)
// 7 describe("startOfWeek", () => {                 (7–20, anonymous)
// 8   const date = …; 9 it("…", () => {             (9–13, anonymous) 10 const result = startOfWeek(…)
// 22 export const table = rows.map((r) => {         (22–26; callback 22–26 anonymous, its local `cell` 23)
// 28 class Suite { run() { xs.forEach(() => { const each = … }) } }
const tree = buildTree([
  sym("startOfWeek", SymbolKind.Function, r(1, 0, 5, 1), [sym("day", SymbolKind.Constant, r(2, 2, 2, 20))]),
  sym(
    'describe("startOfWeek") callback',
    SymbolKind.Function,
    r(7, 22, 20, 1),
    [
      sym("date", SymbolKind.Constant, r(8, 2, 8, 30)),
      sym(
        'it("works") callback',
        SymbolKind.Function,
        r(9, 14, 13, 3),
        [sym("result", SymbolKind.Constant, r(10, 4, 10, 40))],
        true,
      ),
    ],
    true,
  ),
  sym("table", SymbolKind.Variable, r(22, 0, 26, 3), [
    sym(
      "rows.map() callback",
      SymbolKind.Function,
      r(22, 30, 26, 1),
      [sym("cell", SymbolKind.Constant, r(23, 2, 23, 20))],
      true,
    ),
  ]),
  sym("Suite", SymbolKind.Class, r(28, 0, 34, 1), [
    sym("run", SymbolKind.Method, r(29, 2, 33, 3), [
      sym(
        "forEach() callback",
        SymbolKind.Function,
        r(30, 15, 32, 5),
        [sym("each", SymbolKind.Constant, r(31, 6, 31, 20))],
        true,
      ),
    ]),
  ]),
]);

test("nothing an anonymous callback declares is a symbol, at any depth", () => {
  const all = [...walk(tree)].map((n) => n.namePath);
  assert.deepEqual(all, ["startOfWeek", "startOfWeek/day", "table", "Suite", "Suite/run"]);
  assert.deepEqual(
    tree.map((n) => n.name),
    ["startOfWeek", "table", "Suite"],
  );
});

test("a reference inside a callback belongs to the nearest named ancestor, or to none at the top level", () => {
  const at = (line: number, character: number) =>
    containingSymbol(tree, { line, character })?.namePath ?? null;
  assert.equal(at(10, 20), null, "inside it() inside describe(): top-level code");
  assert.equal(at(8, 20), null, "a describe() callback's own local");
  assert.equal(at(23, 10), "table", "a callback's local under a top-level variable");
  assert.equal(at(31, 12), "Suite/run", "a callback's local inside a method");
  assert.equal(at(3, 4), "startOfWeek");
  assert.equal(at(2, 10), "startOfWeek", "a named function's own local is not a container either");
});

test("test files: the TypeScript declaration and the generic default", () => {
  const ts = typescriptAdapter;
  for (const p of [
    "src/a.test.ts",
    "src/a.spec.tsx",
    "src/startOfWeek/test.ts",
    "src/v3/tests/x.ts",
    "__tests__/a.ts",
    "test/a.ts",
  ])
    assert.equal(isTestPath(ts, p), true, p);
  for (const p of ["src/startOfWeek/index.ts", "src/testing.ts", "src/contest/a.ts", "src/attest.ts"])
    assert.equal(isTestPath(ts, p), false, p);
  const bare = { id: "x" } as LanguageAdapter;
  assert.equal(isTestPath(bare, "tests/it.rs"), true);
  assert.equal(isTestPath(bare, "src/lib.rs"), false);
  assert.equal(isTestPath(null, "tests/a.txt"), false);
});
