/**
 * The reference scope kept between calls (src/references/scope-cache.ts): each map holds what its
 * byte bound allows, the oldest kept going first (a use does not renew an entry, keeping it again does),
 * and everything is forgotten on any reported change outside `.scalpel/`. End to end in
 * test/e2e/reference-scope-cache.test.ts.
 */
import * as assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { type Mentions, refreshMentions, walkOrder } from "../../src/references/name-mentions.js";
import {
  defaultMaxBytes,
  ReferenceScopeCache,
  weighMentions,
  weighProject,
} from "../../src/references/scope-cache.js";

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

// Names from 10 to 99 spell alike: every answer and scan below weighs the same.
test("project answers: as many kept as their bytes allow, the oldest first out; a use does not renew one, keeping it again does", () => {
  const s = session();
  const cache = new ReferenceScopeCache(root, s, 4 * weighProject(answer(10)));
  for (let n = 10; n < 14; n++) cache.keepProject(cache.mark, file(n), answer(n));
  assert.equal(cache.project(file(10))?.project, "p10/tsconfig.json", "a use");
  cache.keepProject(cache.mark, file(11), answer(11));
  cache.keepProject(cache.mark, file(14), answer(14));
  assert.equal(cache.project(file(10)), undefined, "the oldest kept went, though used just now");
  assert.ok(cache.project(file(11)), "kept again: renewed");
  cache.keepProject(cache.mark, file(15), answer(15));
  assert.equal(cache.project(file(12)), undefined);
  assert.ok(cache.project(file(11)) && cache.project(file(13)) && cache.project(file(15)));
  s.changed(".scalpel/cache/x");
  assert.ok(cache.project(file(13)), "scalpel's own state changes nothing");
  s.changed("src/a.ts");
  assert.equal(cache.project(file(13)), undefined, "any other change forgets every answer");
});

test("a large project's answers weigh their file lists: 16 MiB keeps a few of 20,000 files, not 256", () => {
  const cache = new ReferenceScopeCache(root, session());
  const files = new Set(Array.from({ length: 20_000 }, (_, i) => `src/generated/module${i}.ts`));
  const big = (n: number) => ({ project: `p${n}/tsconfig.json`, files });
  assert.ok(weighProject(big(0)) > files.size * 30, "each path and its slot");
  for (let n = 0; n < 256; n++) cache.keepProject(cache.mark, file(n), big(n));
  const kept = Array.from({ length: 256 }, (_, n) => cache.project(file(n))).filter(Boolean).length;
  assert.equal(kept, Math.floor(defaultMaxBytes / weighProject(big(0))));
  assert.ok(cache.project(file(255)), "the newest stays");
});

test("scans: as many names kept per project file set as their bytes allow, the oldest first out", () => {
  const cache = new ReferenceScopeCache(root, session(), 3 * weighMentions(mentions(10)));
  const skip = new Set(["a.ts"]);
  const other = new Set(["b.ts"]);
  for (let n = 10; n < 14; n++) cache.keepMentions(cache.mark, skip, `name${n}`, mentions(n));
  cache.keepMentions(cache.mark, other, "name10", mentions(10));
  assert.equal(cache.mentionsOf(skip, "name10"), undefined);
  assert.deepEqual(cache.mentionsOf(skip, "name11")?.dirs, ["d11"]);
  assert.deepEqual(cache.mentionsOf(skip, "name13")?.dirs, ["d13"]);
  assert.ok(cache.mentionsOf(other, "name10"), "each file set has its own bound");
});

test("a scan some of whose folders are not watched is kept: only those are scanned again, in the walk's order", async () => {
  const unwatched = new Set([join(root, "scripts/build/x"), join(root, "scripts/build/x/y")]);
  const s = { ...session(), watches: (dir: string) => !unwatched.has(dir) };
  const cache = new ReferenceScopeCache(root, s);
  const skip = new Set(["src/a.ts"]);
  const path = (rel: string) => ({ rel, abs: join(root, rel) }) as unknown as Mentions["files"][number];
  const kept: Mentions = {
    files: [path("scripts/a.ts"), path("scripts/build/x/old.ts"), path("test/t.ts")],
    dirs: [".", "scripts", "scripts/build", "scripts/build/x", "scripts/build/x/y", "test"],
  };
  cache.keepMentions(cache.mark, skip, "name", kept);
  assert.equal(cache.mentionsOf(skip, "name"), undefined, "not usable whole");
  const part = cache.partOf(skip, "name");
  assert.deepEqual(part?.stale, ["scripts/build/x", "scripts/build/x/y"]);
  const rescanned: string[] = [];
  const refreshed = await refreshMentions(part!.kept, part!.stale, async (dir) => {
    rescanned.push(dir);
    return {
      files: [path("scripts/build/x/new.ts"), path("scripts/build/x/y/z.ts")],
      dirs: [dir, `${dir}/y`],
    };
  });
  assert.deepEqual(rescanned, ["scripts/build/x"], "a folder below a stale one is in its scan");
  assert.deepEqual(
    refreshed?.files.map((p) => p.rel),
    ["scripts/a.ts", "scripts/build/x/new.ts", "scripts/build/x/y/z.ts", "test/t.ts"],
  );
  assert.equal(
    await refreshMentions(part!.kept, part!.stale, async (dir) => ({
      files: [],
      dirs: [dir],
      stopped: { scanned: 1 },
    })),
    undefined,
    "a part scan that stops leaves the whole scan to the caller",
  );
  s.changed("test/t.ts");
  assert.equal(cache.partOf(skip, "name"), undefined, "any reported change forgets it");
});

test("walk order: segment by segment, a folder before what is in it", () => {
  const rels = ["b.ts", "a/z.ts", "a-b.ts", "a/b/c.ts", "a.ts", "A.ts"];
  const walked = ["A.ts", "a/b/c.ts", "a/z.ts", "a-b.ts", "a.ts", "b.ts"];
  assert.deepEqual([...rels].sort(walkOrder), walked);
});
