import * as assert from "node:assert/strict";
import { test } from "node:test";
import type { DocumentSymbol } from "vscode-languageserver-protocol";
import { normalizeTypescriptSymbols } from "../../language-servers/typescript.js";

function sym(name: string, line: number, children?: DocumentSymbol[]): DocumentSymbol {
  const range = { start: { line, character: 0 }, end: { line: line + 1, character: 0 } };
  return { name, kind: 12, range, selectionRange: range, ...(children ? { children } : {}) };
}

test("anonymous callbacks are dropped and their children kept, in source order", () => {
  const input = [
    sym("zeta", 1),
    sym('describe("parse") callback', 5, [sym("helper", 7), sym("<function>", 6, [sym("deep", 6)])]),
    sym("alpha", 20, [sym("items.map() callback", 22), sym("local", 21)]),
    sym("<class>", 30),
  ];
  const names = (syms: DocumentSymbol[]): unknown[] =>
    syms.map((s) => (s.children?.length ? { [s.name]: names(s.children) } : s.name));
  assert.deepEqual(names(normalizeTypescriptSymbols(input)), [
    "zeta",
    "deep",
    "helper",
    { alpha: ["local"] },
  ]);
});

test("quoted property names containing 'callback' are kept", () => {
  const out = normalizeTypescriptSymbols([sym('"on callback"', 1)]);
  assert.equal(out[0]?.name, '"on callback"');
});
