/**
 * Texts of reference-site files kept between calls (src/references/site-text-cache.ts): forgotten when
 * the session reports the file or a directory above it changed, never used from a directory
 * without a watch, and not kept when a change overtook the read. The session here is a stand-in
 * whose reports the test makes; the real reports (watcher events, scalpel's writes) are covered
 * end to end in test/e2e/reference-scope-cache.test.ts.
 */
import * as assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { pathToFileURL } from "node:url";
import {
  factKey,
  type SiteFacts,
  type SiteText,
  SiteTextCache,
} from "../../src/references/site-text-cache.js";
import { Sandbox } from "../../src/security/sandbox.js";

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

const site = (text: string): SiteText => ({ text });
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

test("past the size bound, texts unused for a while make room; recent ones stay and the newcomer is not kept", () => {
  const s = session();
  let now = 0;
  const cache = new SiteTextCache(s, { maxTextBytes: 3 * (16 + 3) + 1, staleMs: 1000, now: () => now });
  const at = (n: number) => join(root, `f${n}.ts`);
  for (const n of [1, 2, 3]) cache.keep(cache.mark, at(n), site("xxx"));
  // Full (57 of 58 bytes: 3 and a header each): a working set larger than the bound keeps the part that fits, call after call.
  cache.keep(cache.mark, at(4), site("xxx"));
  assert.equal(cache.get(at(4)), undefined, "not kept: every kept text was used just now");
  assert.ok(cache.get(at(1)) && cache.get(at(2)) && cache.get(at(3)));
  now = 500;
  assert.ok(cache.get(at(2)), "used again");
  now = 1200;
  cache.keep(cache.mark, at(5), site("xxx"));
  assert.ok(cache.get(at(5)), "kept in place of the least recently used stale text");
  assert.equal(cache.get(at(1)), undefined);
  assert.ok(cache.get(at(2)) && cache.get(at(3)));
});

// What a site showed is kept apart from the texts (a file whose text does not fit keeps its facts),
// bounded by weight with the least recently used file's facts out first, forgotten like the texts.
test("a site's facts are kept apart from its text, bounded, and forgotten when the file changes", () => {
  const s = session();
  const cache = new SiteTextCache(s, { maxTextBytes: 4, maxFactBytes: 1000 });
  const text = "export const x = compute(1);\n";
  const facts: SiteFacts = {
    declares: false,
    import: false,
    container: { namePath: "x", kind: "constant" },
    line: text.slice(0, 28),
  };
  const key = factKey({ line: 0, character: 17 }, { name: "compute", kind: "method" });
  cache.keep(cache.mark, a, site(text));
  assert.equal(cache.get(a), undefined, "the text is past the texts' bound");
  cache.keepFacts(cache.mark, a, key, facts);
  assert.deepEqual(cache.factsOf(a)?.get(key), facts, "its facts are kept all the same");
  const weight = cache.size.facts;
  assert.ok(weight > facts.line.length + key.length, `a fact weighs its strings and more (${weight})`);
  cache.keepFacts(cache.mark, a, key, facts);
  assert.equal(cache.size.facts, weight, "kept once");
  assert.equal(
    cache.factsOf(a)?.get(factKey({ line: 0, character: 17 }, { name: "compute", kind: "function" })),
    undefined,
    "another symbol's site is another fact",
  );
  cache.keepFacts(
    cache.mark,
    a,
    factKey({ line: 0, character: 18 }, { name: "compute", kind: "method" }),
    facts,
  );
  assert.equal(cache.size.facts, 2 * weight, "a second site of the file weighs as much again");

  // Past the bound the least recently used file's facts go.
  const at = (n: number) => join(root, `f${n}.ts`);
  for (let n = 0; n < 20; n++) cache.keepFacts(cache.mark, at(n), key, facts);
  assert.ok(cache.size.facts <= 1000, `bounded (${cache.size.facts})`);
  assert.equal(cache.factsOf(at(0)), undefined, "the oldest went");
  assert.ok(cache.factsOf(at(19)), "the newest stays");

  const c = join(root, "src/deep/c.ts");
  cache.keepFacts(cache.mark, b, key, facts);
  cache.keepFacts(cache.mark, c, key, facts);
  const before = cache.size.facts;
  s.changed("src/deep/b.ts");
  assert.equal(cache.factsOf(b), undefined, "its file changed");
  assert.ok(cache.factsOf(c));
  s.changed("src/deep");
  assert.equal(cache.factsOf(c), undefined, "a directory above it changed");
  assert.equal(cache.size.facts, before - 2 * weight, "their weight is let go");

  const mark = cache.mark;
  s.changed("src/other.ts");
  cache.keepFacts(mark, b, key, facts);
  assert.equal(cache.factsOf(b), undefined, "worked out from a text that a change overtook: not kept");
  cache.keepFacts(cache.mark, b, key, facts);
  s.unwatched = [join(root, "src/deep")];
  assert.equal(cache.factsOf(b), undefined, "not used from a directory without a watch");
});

// Where a site's URI points (the sandbox's answer) is kept beside the texts, and forgotten the same
// way. A real sandbox on a real directory gives the places.
test("a site's place is kept for its sandbox until its file or a directory above it changes", () => {
  const base = realpathSync(mkdtempSync(join(tmpdir(), "scalpel-places-")));
  try {
    const dir = join(base, "project");
    mkdirSync(join(dir, "src", "deep"), { recursive: true });
    writeFileSync(join(dir, "src", "a.ts"), "export const a = 1;\n");
    writeFileSync(join(dir, "src", "deep", "b.ts"), "export const b = 1;\n");
    symlinkSync(dir, join(base, "alias"));
    const listeners = new Set<(paths: readonly string[]) => void>();
    const s = {
      unwatched: [] as string[],
      startedAt: 1,
      onDiskChange(listener: (paths: readonly string[]) => void) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      watches(absDir: string) {
        return !this.unwatched.includes(absDir);
      },
      changed(...rels: string[]) {
        for (const listener of listeners) listener(rels.map((rel) => join(dir, rel)));
      },
    };
    const cache = new SiteTextCache(s);
    const sandbox = new Sandbox(dir);
    const uriA = pathToFileURL(join(dir, "src", "a.ts")).href;
    const uriB = pathToFileURL(join(dir, "src", "deep", "b.ts")).href;
    const viaAlias = pathToFileURL(join(base, "alias", "src", "a.ts")).href;
    const keep = (uri: string) => cache.keepPlace(cache.mark, uri, sandbox, sandbox.fromUri(uri));
    for (const uri of [uriA, uriB, viaAlias]) keep(uri);
    const a = cache.place(uriA, sandbox);
    assert.equal(a?.kind === "file" ? a.path.rel : a?.kind, "src/a.ts");
    assert.equal(cache.place(uriA, new Sandbox(dir)), undefined, "another sandbox asks again");
    assert.equal(cache.place(viaAlias, sandbox), undefined, "an alias spelling is not kept");
    s.changed("src/other.ts");
    assert.ok(cache.place(uriA, sandbox) && cache.place(uriB, sandbox), "another file's change keeps them");
    s.changed("src/deep");
    assert.equal(cache.place(uriB, sandbox), undefined, "a directory above it changed");
    assert.ok(cache.place(uriA, sandbox));
    s.changed("src/a.ts");
    assert.equal(cache.place(uriA, sandbox), undefined, "its own file changed");
    keep(uriA);
    s.unwatched = [join(dir, "src")];
    assert.equal(cache.place(uriA, sandbox), undefined, "not used from a directory without a watch");
    s.unwatched = [];
    const mark = cache.mark;
    s.changed("src/deep/b.ts");
    cache.keepPlace(mark, uriB, sandbox, sandbox.fromUri(uriB));
    assert.equal(cache.place(uriB, sandbox), undefined, "a lookup that a change overtook is not kept");
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});
