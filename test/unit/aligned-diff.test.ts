/**
 * The aligned fast path of unified diffs (src/edits/aligned-diff.ts) against jsdiff itself on many
 * random edits that keep line counts: where it answers, its hunks are jsdiff's of the same lines,
 * and `unifiedDiff` gives the same diff with and without it.
 */
import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { structuredPatch } from "diff";
import { alignedHunks } from "../../src/edits/aligned-diff.js";
import { unifiedDiff } from "../../src/edits/diff.js";
import { mulberry32 as random } from "../helpers/prng.js";

// Few distinct lines, so that repeats (and other alignments as short as the line-by-line one) are common.
const common = ["}", "", "  return x;", "foo(a);", "fooRenamed(a);", "const y = foo;"];

function randomCase(rnd: () => number): { before: string; after: string } {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const n = 1 + Math.floor(rnd() * 60);
  const old = Array.from({ length: n }, (_, i) => (rnd() < 0.5 ? pick(common) : `line ${i} foo`));
  const edited = [...old];
  const edits = 1 + Math.floor(rnd() * Math.min(n, 8));
  for (let e = 0; e < edits; e++) {
    const i = Math.floor(rnd() * n);
    const r = rnd();
    // A rename of the line's name, a line from the common ones, or a new line.
    edited[i] = r < 0.5 ? edited[i]!.replaceAll("foo", "fooRenamed") : r < 0.8 ? pick(common) : `new ${e}`;
  }
  return { before: `${old.join("\n")}\n`, after: `${edited.join("\n")}\n` };
}

/** jsdiff's hunks of the block from the first to the last changed line, with 3 context lines. */
function jsdiffHunks(x: string[], y: string[]) {
  let from = 0;
  while (x[from] === y[from]) from++;
  let to = x.length;
  while (x[to - 1] === y[to - 1]) to--;
  const skip = Math.max(0, from - 3);
  const end = Math.min(x.length, to + 3);
  const text = (lines: string[]) => `${lines.slice(skip, end).join("\n")}\n`;
  const patch = structuredPatch("a", "b", text(x), text(y), undefined, undefined, { context: 3 })!;
  for (const h of patch.hunks) {
    h.oldStart += skip;
    h.newStart += skip;
  }
  return { hunks: patch.hunks, from, to };
}

describe("aligned diff fast path", () => {
  it("gives jsdiff's hunks wherever it answers; unifiedDiff is the same with and without it", () => {
    const rnd = random(21);
    let answered = 0;
    let declined = 0;
    for (let k = 0; k < 3000; k++) {
      const { before, after } = randomCase(rnd);
      assert.deepEqual(
        unifiedDiff("src/x.ts", before, after),
        unifiedDiff("src/x.ts", before, after, false),
        `case ${k}:\n${before}----\n${after}`,
      );
      if (before === after) continue;
      const x = before.slice(0, -1).split("\n");
      const y = after.slice(0, -1).split("\n");
      const expected = jsdiffHunks(x, y);
      const hunks = alignedHunks(x, y, expected.from, expected.to, 5000);
      if (hunks === undefined) {
        declined++;
        continue;
      }
      answered++;
      assert.deepEqual(hunks, expected.hunks, `case ${k}:\n${before}----\n${after}`);
    }
    // Both paths are exercised: the comparison above means something for each.
    assert.ok(answered > 500, `fast path answered ${answered} of 3000`);
    assert.ok(declined > 100, `fast path declined ${declined} of 3000`);
  });
});
