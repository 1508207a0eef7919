/**
 * The reference scope kept between calls (src/references/scope-cache.ts): each map holds at most
 * 256 entries, the oldest kept going first (a use does not renew an entry, keeping it again does),
 * and everything is forgotten on any reported change outside `.scalpel/`. End to end in
 * test/e2e/reference-scope-cache.test.ts.
 */
import * as assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import type { Mentions } from "../../src/references/name-mentions.js";
import { ReferenceScopeCache } from "../../src/references/scope-cache.js";

const root = "/project";

function session() {
  const listeners = new Set<(paths: readonly string[]) => void>();
  return {
    startedAt: 1,
    onDiskChange(listener: (paths: readonly string[]) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    watches: () => true,
    changed(...rels: string[]): void {
      for (const listener of listeners) listener(rels.map((rel) => join(root, rel)));
    },
  };
}

const answer = (n: number) => ({ project: `p${n}/tsconfig.json`, files: new Set([`p${n}/a.ts`]) });
const file = (n: number) => join(root, `f${n}.ts`);
const mentions = (n: number): Mentions => ({ files: [], dirs: [`d${n}`] });

test("project answers: 256 kept, the oldest kept out first; a use does not renew one, keeping it again does", () => {
  const s = session();
  const cache = new ReferenceScopeCache(root, s);
  for (let n = 0; n < 256; n++) cache.keepProject(cache.mark, file(n), answer(n));
  assert.equal(cache.project(file(0))?.project, "p0/tsconfig.json", "a use");
  cache.keepProject(cache.mark, file(1), answer(1));
  cache.keepProject(cache.mark, file(256), answer(256));
  assert.equal(cache.project(file(0)), undefined, "the oldest kept went, though used just now");
  assert.ok(cache.project(file(1)), "kept again: renewed");
  cache.keepProject(cache.mark, file(257), answer(257));
  assert.equal(cache.project(file(2)), undefined);
  assert.ok(cache.project(file(1)) && cache.project(file(3)) && cache.project(file(257)));
  s.changed(".scalpel/cache/x");
  assert.ok(cache.project(file(3)), "scalpel's own state changes nothing");
  s.changed("src/a.ts");
  assert.equal(cache.project(file(3)), undefined, "any other change forgets every answer");
});

test("scans: 256 names kept per project file set, the oldest kept out first", () => {
  const cache = new ReferenceScopeCache(root, session());
  const skip = new Set(["a.ts"]);
  const other = new Set(["b.ts"]);
  for (let n = 0; n < 257; n++) cache.keepMentions(cache.mark, skip, `name${n}`, mentions(n));
  cache.keepMentions(cache.mark, other, "name0", mentions(0));
  assert.equal(cache.mentionsOf(skip, "name0"), undefined);
  assert.deepEqual(cache.mentionsOf(skip, "name1")?.dirs, ["d1"]);
  assert.deepEqual(cache.mentionsOf(skip, "name256")?.dirs, ["d256"]);
  assert.ok(cache.mentionsOf(other, "name0"), "each file set has its own bound");
});
