/**
 * Texts of reference-site files kept between calls (src/project/site-text-cache.ts): forgotten when
 * the session reports the file or a directory above it changed, never used from a directory
 * without a watch, and not kept when a change overtook the read. The session here is a stand-in
 * whose reports the test makes; the real reports (watcher events, scalpel's writes) are covered
 * end to end in test/e2e/reference-scope-cache.test.ts.
 */
import * as assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { SiteTextCache } from "../../src/project/site-text-cache.js";

const root = "/project";

function session() {
  const listeners = new Set<(paths: readonly string[]) => void>();
  return {
    unwatched: [] as string[],
    startedAt: 1,
    onDiskChange(listener: (paths: readonly string[]) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    watches(absDir: string): boolean {
      return !this.unwatched.includes(absDir);
    },
    changed(...rels: string[]): void {
      for (const listener of listeners) listener(rels.map((rel) => join(root, rel)));
    },
  };
}

const site = (text: string) => ({ text, lines: text.split("\n") });
const a = join(root, "src/a.ts");
const b = join(root, "src/deep/b.ts");

test("a kept text is used until its file, or a directory above it, is reported changed", () => {
  const s = session();
  const cache = new SiteTextCache(s);
  cache.keep(cache.mark, a, site("one"));
  cache.keep(cache.mark, b, site("two"));
  assert.equal(cache.get(a)?.text, "one");
  s.changed("src/other.ts");
  assert.equal(cache.get(a)?.text, "one", "another file's change keeps it");
  s.changed("src/a.ts");
  assert.equal(cache.get(a), undefined);
  assert.equal(cache.get(b)?.text, "two");
  s.changed("src/deep");
  assert.equal(cache.get(b), undefined, "a directory renamed or removed takes its files along");
});

test("nothing is kept or used from a directory without a watch", () => {
  const s = session();
  const cache = new SiteTextCache(s);
  cache.keep(cache.mark, a, site("one"));
  s.unwatched = [join(root, "src")];
  assert.equal(cache.get(a), undefined, "a watch lost since: its silence says nothing");
  cache.keep(cache.mark, join(root, "src/c.ts"), site("three"));
  s.unwatched = [];
  assert.equal(cache.get(join(root, "src/c.ts")), undefined);
});

test("a read that a change overtook is not kept", () => {
  const s = session();
  const cache = new SiteTextCache(s);
  const mark = cache.mark;
  s.changed("src/a.ts");
  cache.keep(mark, a, site("read before the change"));
  assert.equal(cache.get(a), undefined);
});

test("past the size bound the oldest texts go first", () => {
  const s = session();
  const cache = new SiteTextCache(s);
  const big = "x".repeat(6 * 1024 * 1024);
  for (const n of [1, 2, 3]) cache.keep(cache.mark, join(root, `big${n}.ts`), { text: big, lines: [] });
  assert.equal(cache.get(join(root, "big1.ts")), undefined);
  assert.ok(cache.get(join(root, "big2.ts")) && cache.get(join(root, "big3.ts")));
});
