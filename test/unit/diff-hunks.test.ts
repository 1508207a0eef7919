/** Splitting a diff at files and hunks: the counts in `@@` headers decide where a hunk ends. */
import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import { cutPatches, parsePatches, unifiedDiff } from "../../src/edits/diff.js";

const lines = (n: number, f: (i: number) => string) =>
  Array.from({ length: n }, (_, i) => f(i + 1)).join("\n");

describe("parsePatches / cutPatches", () => {
  // A removed line that itself starts with "-- " looks like a file header to a naive splitter.
  const before = `${lines(30, (i) => (i === 5 ? "-- sql comment" : `line ${i}`))}\n`;
  const after = before.replace("-- sql comment", "-- changed").replace("line 25", "LINE 25");
  const one = unifiedDiff("db/q.sql", before, after);
  const two = unifiedDiff("src/new.ts", null, "a\nb");
  const three = unifiedDiff("src/gone.ts", "x\n", null);
  const diff = one.diff + two.diff + three.diff;

  it("finds every file and hunk, sites and where they start", () => {
    const p = parsePatches(diff);
    assert.deepEqual(
      p.map((f) => [f.path, f.hunks.length, f.sites, f.lines]),
      [
        ["db/q.sql", 2, 2, [5, 25]],
        ["src/new.ts", 1, 1, [1]],
        ["src/gone.ts", 1, 1, [1]],
      ],
    );
    assert.equal(p.map((f) => f.header + f.hunks.join("")).join(""), diff, "the parts make the whole diff");
    assert.ok(
      p[1]!.hunks[0]!.includes("\\ No newline at end of file"),
      "the no-newline marker stays with its hunk",
    );
  });

  it("cuts at whole files, or at the first file's whole hunks, never inside a hunk", () => {
    const p = parsePatches(diff);
    const len = (t: string) => t.length;
    const firstFile = p[0]!.header + p[0]!.hunks.join("");
    assert.deepEqual(cutPatches(p, diff.length, len), { diff, files: 3, hunks: 0 });
    assert.deepEqual(cutPatches(p, firstFile.length + 5, len), { diff: firstFile, files: 1, hunks: 0 });
    const firstHunk = p[0]!.header + p[0]!.hunks[0]!;
    assert.deepEqual(cutPatches(p, firstHunk.length + 1, len), { diff: firstHunk, files: 0, hunks: 1 });
    assert.deepEqual(cutPatches(p, firstHunk.length - 1, len), { diff: "", files: 0, hunks: 0 });
  });
});
