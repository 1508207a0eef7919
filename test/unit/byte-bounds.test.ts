/**
 * Caches bounded by bytes (issue #22): what a string weighs (src/core/string-bytes.ts), the memo
 * keyed by long strings (src/core/text-keyed-memo.ts), and site texts weighed by their bytes, a
 * text of characters past U+00FF twice its length.
 */
import * as assert from "node:assert/strict";
import { test } from "node:test";
import { stringBytes, stringHeaderBytes } from "../../src/core/string-bytes.js";
import { TextKeyedMemo } from "../../src/core/text-keyed-memo.js";
import { SiteTextCache } from "../../src/references/site-text-cache.js";

test("a string weighs a byte a character, two when any is past U+00FF, and a header", () => {
  assert.equal(stringBytes("abc"), stringHeaderBytes + 3);
  assert.equal(stringBytes("größe"), stringHeaderBytes + 5, "Latin-1 stays one byte a character");
  assert.equal(stringBytes("a→b"), stringHeaderBytes + 6);
  assert.equal(stringBytes("\u0000x"), stringHeaderBytes + 2);
});

test("the memo keeps keys up to its bytes, then starts over; a key over the bound is not kept", () => {
  const key = (n: number) => `${"x".repeat(84)}${n}`; // 85 characters, 101 bytes
  const memo = new TextKeyedMemo<number>(3 * stringBytes(key(1)));
  for (const n of [1, 2, 3]) memo.set(key(n), n);
  assert.equal(memo.size, 3 * stringBytes(key(1)));
  assert.deepEqual(
    [1, 2, 3].map((n) => memo.get(key(n))),
    [1, 2, 3],
  );
  memo.set(key(3), 30);
  assert.equal(memo.get(key(3)), 3, "a key kept is not weighed again");
  memo.set(key(4), 4);
  assert.deepEqual(
    [1, 2, 3, 4].map((n) => memo.get(key(n))),
    [undefined, undefined, undefined, 4],
  );
  assert.equal(memo.size, stringBytes(key(4)));
  memo.set("y".repeat(1000), 5);
  assert.equal(memo.get("y".repeat(1000)), undefined);
  assert.equal(memo.size, stringBytes(key(4)));
});

test("site texts are weighed by bytes: a text of two-byte characters takes twice the room", () => {
  const session = { startedAt: 1, onDiskChange: () => () => undefined, watches: () => true };
  const ascii = "x".repeat(100);
  const wide = "→".repeat(100);
  const cache = new SiteTextCache(session, { maxTextBytes: 2 * stringBytes(ascii) + 10 });
  cache.keep(cache.mark, "/p/a.ts", { text: ascii });
  cache.keep(cache.mark, "/p/b.ts", { text: wide });
  assert.equal(cache.get("/p/b.ts"), undefined, "100 characters, 200 bytes: no room beside the other");
  assert.equal(cache.size.texts, stringBytes(ascii));
  cache.keep(cache.mark, "/p/c.ts", { text: ascii });
  assert.ok(cache.get("/p/a.ts") && cache.get("/p/c.ts"), "two one-byte texts of the same length fit");
});
