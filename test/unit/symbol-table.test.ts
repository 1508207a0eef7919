// The compact table of the symbol index: packing keeps every field an adapter gives (so trees built
// from it equal trees built from the server's answer), a pattern is looked up in the paths before
// any tree is built and is never missed there, and a row hashed right after a write keeps no mtime.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { DocumentSymbol } from "vscode-languageserver-protocol";
import { log } from "../../src/core/log.js";
import { KeyTable } from "../../src/symbols/key-table.js";
import { parseNamePath } from "../../src/symbols/name-path.js";
import { matchSymbols } from "../../src/symbols/resolve.js";
import { pathsMayMatch, readSymbols, rowTexts, sameStat, type TableEntry } from "../../src/symbols/table.js";
import { buildTree, walk } from "../../src/symbols/tree.js";

const at = (line: number, from: number, to: number) => ({
  start: { line, character: from },
  end: { line, character: to },
});

const symbols: DocumentSymbol[] = [
  {
    name: "Core",
    kind: 5,
    range: at(0, 0, 40),
    selectionRange: at(0, 13, 17),
    detail: "class",
    children: [{ name: "compute", kind: 6, range: at(1, 2, 30), selectionRange: at(1, 2, 9), children: [] }],
    declaration: { head: { line: 0, character: 0 }, body: { line: 0, character: 7 } },
  } as DocumentSymbol,
  {
    name: "Noise",
    kind: 5,
    range: at(3, 0, 40),
    selectionRange: at(3, 6, 11),
    children: [
      {
        name: "compute",
        kind: 6,
        range: at(4, 2, 30),
        selectionRange: at(4, 2, 9),
        children: [],
        // What a Rust adapter adds: the impl header that declared the method.
        container: "impl Shape for Noise",
      } as DocumentSymbol,
    ],
  },
  {
    name: "xs.map() callback",
    kind: 12,
    range: at(6, 0, 20),
    selectionRange: at(6, 0, 20),
    children: [],
    anonymous: true,
  } as DocumentSymbol,
];

const old = { size: 120, mtimeMs: Date.now() - 60_000 };

/** A row of an in-memory table (a read-only project's). */
function entryOf(
  hash: string,
  st: { size: number; mtimeMs: number } | null,
  list: DocumentSymbol[],
): TableEntry {
  const table = new KeyTable(null, log);
  table.set("src/a.ts", hash, st, list, false);
  return table.rows.get("src/a.ts")!;
}

test("packed symbols unpack to the same trees", () => {
  const entry = entryOf("h", old, symbols);
  const again = readSymbols(entry)!;
  const view = (list: DocumentSymbol[]) =>
    [...walk(buildTree(list))].map((n) => [
      n.namePath,
      n.kind,
      n.detail,
      n.range,
      n.selectionRange,
      n.declaration,
    ]);
  assert.deepEqual(view(again), view(symbols));
  assert.equal((again[1]!.children![0] as { container?: string }).container, "impl Shape for Noise");
  assert.equal((again[2] as { anonymous?: boolean }).anonymous, true);
  // A sixth of the object form, roughly: the point of packing.
  assert.ok(entry.symsLen * 2 < JSON.stringify(symbols).length, String(entry.symsLen));
});

test("a pattern is looked up in the paths: suffix, absolute, an impl header, substring", () => {
  const paths = rowTexts(symbols).paths.toString("utf8");
  const may = (p: string, sub = false) => pathsMayMatch(paths, parseNamePath(p), sub);
  assert.equal(may("Core/compute"), true);
  assert.equal(may("compute"), true);
  assert.equal(may("/Core/compute"), true);
  assert.equal(may("/compute"), false);
  assert.equal(may("Other/compute"), false);
  assert.equal(may("impl Shape for Noise/compute"), true);
  assert.equal(may("ompu", true), true);
  assert.equal(may("compute[1]"), true);
  assert.equal(may("Cor"), false);
  // Never a false "no": every match of the tree passes the lookup.
  const roots = buildTree(symbols);
  for (const p of ["Core/compute", "compute", "/Noise", "impl Shape for Noise/compute", "Noise/compute"]) {
    if (matchSymbols(roots, p).length > 0) assert.equal(may(p), true, p);
  }
});

test("size and mtime vouch for a row, except one hashed within two seconds of its write", () => {
  const entry = entryOf("h", old, symbols);
  assert.equal(sameStat(entry, old), true);
  assert.equal(sameStat(entry, { ...old, size: 121 }), false);
  assert.equal(sameStat(entry, { ...old, mtimeMs: old.mtimeMs + 1 }), false);
  const recent = { size: 120, mtimeMs: Date.now() - 100 };
  assert.equal(sameStat(entryOf("h", recent, symbols), recent), false);
});
