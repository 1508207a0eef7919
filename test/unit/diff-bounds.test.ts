// The diff of a big rewrite is bounded (a summary instead of a super-linear diff), and the diff
// of an ordinary edit is exactly what jsdiff gives on the whole texts, although jsdiff now sees
// only the changed block.
import assert from "node:assert/strict";
import { test } from "node:test";
import { FILE_HEADERS_ONLY, formatPatch, structuredPatch } from "diff";
import { diffMillis, parsePatches, unifiedDiff } from "../../src/edits/diff.js";

const line = (i: number, tag: string) => `const value${i} = compute("${tag}", ${i}); // padding text\n`;
const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => line(i, tag)).join("");

/** A small deterministic PRNG, so a failing case can be rerun. */
function rng(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

test("an edited block anywhere diffs exactly as jsdiff does on the whole texts", () => {
  const next = rng(7);
  for (let round = 0; round < 1000; round++) {
    const n = 1 + Math.floor(next() * 40);
    const before = Array.from({ length: n }, (_, i) => `l${i % 7}`);
    const after = [...before];
    const edits = 1 + Math.floor(next() * 3);
    for (let e = 0; e < edits; e++) {
      const at = Math.floor(next() * (after.length + 1));
      const kind = next();
      if (kind < 0.33) after.splice(at, 1);
      else if (kind < 0.66) after.splice(at, 0, `new${e}`);
      else after.splice(at, 1, `changed${e}`);
    }
    // Both with and without a final line break, on either side.
    const a = before.join("\n") + (next() < 0.7 ? "\n" : "");
    const b = after.join("\n") + (next() < 0.7 ? "\n" : "");
    const ours = unifiedDiff("f.txt", a, b).diff;
    const whole =
      a === b
        ? ""
        : formatPatch(
            structuredPatch("a/f.txt", "b/f.txt", a, b, undefined, undefined, { context: 3 }),
            FILE_HEADERS_ONLY,
          );
    assert.equal(ours, whole, `round ${round}:\n${JSON.stringify(a)}\n${JSON.stringify(b)}`);
  }
});

test("a few hundred lines edited in the middle of 5 MB still get their diff, quickly", () => {
  const a = lines(80_000, "a");
  const b = a.replace(/value40000 [\s\S]*?value40300 /, (m) => m.toUpperCase());
  const started = Date.now();
  const d = unifiedDiff("big.ts", a, b);
  assert.ok(Date.now() - started < diffMillis + 5_000, `took ${Date.now() - started} ms`);
  assert.match(d.diff, /^@@ -39998,307 \+39998,307 @@/m);
  assert.equal(d.added, 301);
  assert.equal(d.removed, 301);
});

test("a 5 MB rewrite answers a summary within its bound, and the summary survives parsing", () => {
  const a = lines(80_000, "a");
  const b = `${lines(3, "a")}${lines(80_000, "b").slice(0, -1)}`;
  const started = Date.now();
  const d = unifiedDiff("big.ts", a, b);
  const took = Date.now() - started;
  // The bound is diffMillis; the margin is for a noisy shared machine.
  assert.ok(took < diffMillis + 5_000, `took ${took} ms`);
  assert.match(d.diff, /^--- a\/big\.ts\n\+\+\+ b\/big\.ts\n\(diff too large to show: from line 4, /);
  assert.equal(d.removed, 80_000 - 3);
  assert.equal(d.added, 80_000);
  const [patch] = parsePatches(d.diff);
  assert.equal(patch?.path, "big.ts");
  assert.equal(patch?.sites, 1);
  assert.deepEqual(patch?.lines, [4]);
  assert.equal(patch?.header, d.diff);
});

test("a 5 MB new file is summarised without trying a diff", () => {
  const started = Date.now();
  const d = unifiedDiff("new.ts", null, lines(80_000, "n"));
  assert.ok(Date.now() - started < 2_000, `took ${Date.now() - started} ms`);
  assert.match(
    d.diff,
    /^--- \/dev\/null\n\+\+\+ b\/new\.ts\n\(diff too large to show: from line 1, 0 of its 0 lines replaced by 80000 lines/,
  );
  assert.equal(d.added, 80_000);
});
