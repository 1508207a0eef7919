/**
 * The bounded cache of built symbol trees (src/symbols/trees.ts): bounded by their estimated
 * bytes, least recently used first out, a tree only for the text hash it was built from.
 */
import * as assert from "node:assert/strict";
import { test } from "node:test";
import type { DocumentSymbol } from "vscode-languageserver-protocol";
import { buildTree } from "../../src/symbols/tree.js";
import { maxBytes, TreeCache, treeBytes } from "../../src/symbols/trees.js";

const at = (line: number) => ({ start: { line, character: 0 }, end: { line, character: 10 } });
/** A class with `methods` methods: 1 + methods nodes. */
function tree(methods: number) {
  const children: DocumentSymbol[] = Array.from({ length: methods }, (_, i) => ({
    name: `m${i}`,
    kind: 6,
    range: at(i + 1),
    selectionRange: at(i + 1),
  }));
  return buildTree([{ name: "C", kind: 5, range: at(0), selectionRange: at(0), children }]);
}

test("trees are kept per text hash and bounded by their bytes, least recently used out first", () => {
  const ten = treeBytes(tree(9));
  assert.ok(ten > 10 * 500 && ten < 10 * 700, `ten nodes weigh ${ten} bytes`);
  const cache = new TreeCache(2.5 * ten);
  const a = tree(9);
  cache.set("/a.ts", "h1", a);
  cache.set("/b.ts", "h1", tree(9));
  assert.equal(cache.size, 2 * ten);
  assert.equal(cache.get("/a.ts", "h1"), a);
  assert.equal(cache.get("/a.ts", "h2"), null, "another text of the file");
  cache.set("/c.ts", "h1", tree(9));
  assert.equal(cache.get("/b.ts", "h1"), null, "the least recently used went");
  assert.equal(cache.get("/a.ts", "h1"), a, "used since: kept");
  assert.equal(cache.size, 2 * ten);
  const big = tree(40);
  cache.set("/big.ts", "h1", big);
  assert.equal(cache.get("/big.ts", "h1"), big, "a tree larger than the bound is kept alone");
  assert.equal(cache.size, treeBytes(big));
  cache.drop("/big.ts");
  assert.equal(cache.size, 0);
});

test("the default bound holds a few hundred files of the bench's size, not thousands", () => {
  const file = treeBytes(tree(57));
  const fit = Math.floor(maxBytes / file);
  assert.ok(fit > 300 && fit < 1000, `${fit} files of 58 symbols`);
  const cache = new TreeCache();
  for (let i = 0; i < 1000; i++) cache.set(`/f${i}.ts`, "h", tree(57));
  assert.ok(cache.size <= maxBytes);
  assert.ok(cache.size > maxBytes - file);
  assert.notEqual(cache.get("/f999.ts", "h"), null);
  assert.equal(cache.get("/f0.ts", "h"), null);
});
