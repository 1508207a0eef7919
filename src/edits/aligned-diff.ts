/**
 * The unified diff of an edit that keeps every line where it was (a rename, most replacements on
 * one line), built from the changed lines directly instead of jsdiff's Myers search: a warm
 * rename_symbol dry run on rxjs spent about 5 ms of its 16 ms of own time in jsdiff (tokenising
 * each changed block, walking it, building change objects), for hunks that are known once the
 * changed lines are.
 *
 * The hunks are the ones jsdiff makes of the changed block and its context lines (diff.ts; the
 * test/unit/aligned-diff.test.ts compares them on random edits) because the fast path is only
 * taken when the line-by-line pairing is the only longest common subsequence there: no changed
 * line's old text is a line of the new block and no changed line's new text a line of the old one. Then only unchanged lines can match, all of them do, and an
 * order-keeping matching of the unchanged lines to themselves is the identity; jsdiff shows each
 * run of changed lines as its removals, then its additions, and joins hunks the way `joinGap` does.
 */
import type { StructuredPatchHunk } from "diff";

/** Context lines around a change, as jsdiff is asked for (diff.ts). */
const context = 3;

/**
 * The hunks of a change of `x` into `y` (the same number of lines, each ending in a line break) that
 * differs only in lines `from`…`to - 1` (0-based), or undefined when another alignment could be as
 * short (then jsdiff decides). `maxChanged`: past that many changed lines jsdiff's own bound applies.
 */
export function alignedHunks(
  x: readonly string[],
  y: readonly string[],
  from: number,
  to: number,
  maxChanged: number,
): StructuredPatchHunk[] | undefined {
  const oldChanged = new Set<string>();
  const newChanged = new Set<string>();
  const runs: Array<[number, number]> = [];
  for (let i = from; i < to; i++) {
    if (x[i] === y[i]) continue;
    oldChanged.add(x[i]!);
    newChanged.add(y[i]!);
    const last = runs[runs.length - 1];
    if (last && last[1] === i) last[1] = i + 1;
    else runs.push([i, i + 1]);
  }
  let changed = 0;
  for (const [a, b] of runs) changed += b - a;
  if (changed === 0 || changed > maxChanged) return undefined;
  // Over the lines jsdiff would see: the block and its context lines (diff.ts). A line of another
  // length cannot be one of the changed texts: most lines are told apart without hashing them
  // (a rename in zod's 5,000-line types.ts: 1.4 ms a call hashing every line twice).
  const oldLengths = new Set([...oldChanged].map((t) => t.length));
  const newLengths = new Set([...newChanged].map((t) => t.length));
  for (let i = Math.max(0, from - context); i < Math.min(x.length, to + context); i++) {
    const a = x[i]!;
    const b = y[i]!;
    if ((oldLengths.has(b.length) && oldChanged.has(b)) || (newLengths.has(a.length) && newChanged.has(a)))
      return undefined;
  }
  const hunks: StructuredPatchHunk[] = [];
  let hunk: StructuredPatchHunk | undefined;
  for (const [k, [a, b]] of runs.entries()) {
    if (!hunk) {
      const start = Math.max(0, a - context);
      hunk = { oldStart: start + 1, oldLines: 0, newStart: start + 1, newLines: 0, lines: [] };
      for (let i = start; i < a; i++) hunk.lines.push(` ${x[i]}`);
    }
    for (let i = a; i < b; i++) hunk.lines.push(`-${x[i]}`);
    for (let i = a; i < b; i++) hunk.lines.push(`+${y[i]}`);
    const next = runs[k + 1];
    // jsdiff joins two changes whose gap is at most twice the context; else it ends the hunk.
    const end = next && next[0] - b <= 2 * context ? next[0] : Math.min(x.length, b + context);
    for (let i = b; i < end; i++) hunk.lines.push(` ${x[i]}`);
    if (next && end === next[0]) continue;
    hunk.oldLines = hunk.newLines = end - (hunk.oldStart - 1);
    hunks.push(hunk);
    hunk = undefined;
  }
  return hunks;
}
