/** Unified diffs for previews and results, with line endings normalised so CRLF files read cleanly. */
import { FILE_HEADERS_ONLY, formatPatch, type StructuredPatchHunk, structuredPatch } from "diff";
import { stripBom } from "../text/positions.js";
import { alignedHunks } from "./aligned-diff.js";

export interface FileDiff {
  diff: string;
  added: number;
  removed: number;
}

const context = 3;

/**
 * jsdiff's Myers diff runs on the main thread, where it cannot be interrupted, and costs about D²
 * for D edited lines (measured, diff 9.0.0: 300 lines rewritten 0.3 s, a whole-file rewrite of
 * 1 MB 22 s and of 2 MB 188 s), freezing every other call. Past either bound the file gets a
 * summary instead (`summaryOf`), in linear time; the time bound is what a whole rewrite of a large
 * file reaches first (5 MB: answered in 2.3 s). An edit of a few hundred lines anywhere in a 5 MB
 * file still gets its diff: jsdiff sees only the changed block (`unifiedDiff`).
 */
export const maxDiffEditLines = 10_000;
export const diffMillis = 2_000;
/** The line that replaces the hunks of a file whose diff is too large to show. */
const tooLargeNote = "(diff too large to show";

/**
 * `before`/`after` null: the file does not exist on that side. `aligned` false: jsdiff even where
 * the aligned fast path would answer (the test that compares the two).
 */
export function unifiedDiff(
  rel: string,
  before: string | null,
  after: string | null,
  aligned = true,
): FileDiff {
  const a = display(before);
  const b = display(after);
  const oldName = before === null ? "/dev/null" : `a/${rel}`;
  const newName = after === null ? "/dev/null" : `b/${rel}`;
  if (a === b) return { diff: "", added: 0, removed: 0 };
  const change = changedBlock(a, b);
  // Every line count difference is an edit: no need to try when that alone is over the bound.
  if (Math.abs(change.removed - change.added) > maxDiffEditLines) return summaryOf(oldName, newName, change);
  // Lines kept where they were (a rename): the hunks come from the changed lines (aligned-diff.ts).
  if (aligned && change.removed === change.added && a.endsWith("\n") && b.endsWith("\n")) {
    const from = change.from - 1;
    const hunks = alignedHunks(change.x, change.y, from, from + change.removed, maxDiffEditLines / 2);
    if (hunks) return patchOf(oldName, newName, hunks);
  }
  // jsdiff walks the common lines too (an edit of 300 lines in the middle of 5 MB took 0.5 s):
  // it gets the changed block with its context lines only, and the hunks are moved back.
  const skip = Math.max(0, change.from - 1 - context);
  const keep = change.before - change.from + 1 - change.removed - context;
  const patch = structuredPatch(
    oldName,
    newName,
    a.slice(lineOffset(a, skip), lineOffset(a, change.before - Math.max(0, keep))),
    b.slice(lineOffset(b, skip), lineOffset(b, change.after - Math.max(0, keep))),
    undefined,
    undefined,
    { context, maxEditLength: maxDiffEditLines, timeout: diffMillis },
  );
  if (patch === undefined) return summaryOf(oldName, newName, change);
  for (const hunk of patch.hunks) {
    hunk.oldStart += skip;
    hunk.newStart += skip;
  }
  return patchOf(oldName, newName, patch.hunks);
}

/** A file's diff from its hunks, with the lines it adds and removes. */
function patchOf(oldName: string, newName: string, hunks: StructuredPatchHunk[]): FileDiff {
  let added = 0;
  let removed = 0;
  for (const hunk of hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith("+")) added++;
      else if (line.startsWith("-")) removed++;
    }
  }
  const patch = {
    oldFileName: oldName,
    newFileName: newName,
    oldHeader: undefined,
    newHeader: undefined,
    hunks,
  };
  return { diff: formatPatch(patch, FILE_HEADERS_ONLY), added, removed };
}

/** The lines of a text as jsdiff splits them: a final line break ends the last line, it opens no new one. */
function linesOf(text: string): string[] {
  if (text === "") return [];
  return (text.endsWith("\n") ? text.slice(0, -1) : text).split("\n");
}

/** Offset of the start of 0-based line `line` (the text's length past its last line). */
function lineOffset(text: string, line: number): number {
  let at = 0;
  for (let l = 0; l < line; l++) {
    const nl = text.indexOf("\n", at);
    if (nl < 0) return text.length;
    at = nl + 1;
  }
  return at;
}

/** Where two texts differ, by lines: the block between their common first and last lines. */
interface Block {
  /** 1-based first changed line (the same in both texts). */
  from: number;
  removed: number;
  added: number;
  before: number;
  after: number;
  /** Every line of each text (`linesOf`). */
  x: string[];
  y: string[];
}

function changedBlock(a: string, b: string): Block {
  const x = linesOf(a);
  const y = linesOf(b);
  // A line is equal to another when its text and its line break (a last line may have none) are.
  const ended = (text: string, lines: string[], i: number) => i < lines.length - 1 || text.endsWith("\n");
  const same = (i: number, j: number) => x[i] === y[j] && ended(a, x, i) === ended(b, y, j);
  let head = 0;
  while (head < x.length && head < y.length && same(head, head)) head++;
  let tail = 0;
  while (tail < x.length - head && tail < y.length - head && same(x.length - 1 - tail, y.length - 1 - tail)) {
    tail++;
  }
  return {
    from: head + 1,
    removed: x.length - head - tail,
    added: y.length - head - tail,
    before: x.length,
    after: y.length,
    x,
    y,
  };
}

/**
 * A file's diff when it is too large to show: its headers and one line that says which lines
 * changed, counted as one replaced block (`removed`/`added` are at most what a full diff counts).
 */
function summaryOf(oldName: string, newName: string, c: Block): FileDiff {
  const note = `${tooLargeNote}: from line ${c.from}, ${c.removed} of its ${c.before} lines replaced by ${c.added} lines, ${c.after} in all; read the file to see them)`;
  return { diff: `--- ${oldName}\n+++ ${newName}\n${note}\n`, added: c.added, removed: c.removed };
}

function display(text: string | null): string {
  if (text === null) return "";
  return stripBom(text).replace(/\r\n?/g, "\n");
}

/** One file's part of a unified diff, split at hunks so a shortened diff never ends mid-hunk. */
export interface FilePatch {
  /** The path as the headers name it (`b/…`, or `a/…` for a deleted file), without the prefix. */
  path: string;
  /** The `---`/`+++` lines. */
  header: string;
  /** Each hunk's text, `@@` line included, ending in a newline. */
  hunks: string[];
  /** Edited ranges: runs of consecutive added or removed lines. */
  sites: number;
  /** Where each edited range starts, as a 1-based line of the file after the edit. */
  lines: number[];
}

const hunkHeader = /^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/**
 * Splits a diff made by `unifiedDiff` (one or more files joined) into files and hunks. Hunk ends are
 * found by the line counts in each `@@` header, not by looking for the next `---`, since a removed
 * line may itself begin with `--`.
 */
export function parsePatches(diff: string): FilePatch[] {
  const hit = parsed.find((p) => p.diff === diff);
  if (hit) return hit.patches;
  const patches = parseDiff(diff);
  parsed.unshift({ diff, patches });
  parsed.length = Math.min(parsed.length, keptParses);
  return patches;
}

/**
 * The last diffs parsed, with their parts (read only). Fitting a dry run's answer parses the same
 * whole diff at each of its steps (and the files' summary once more at each): a rename of 29 files on
 * rxjs parsed one diff 6 times a call.
 */
const parsed: Array<{ diff: string; patches: FilePatch[] }> = [];
const keptParses = 4;

function parseDiff(diff: string): FilePatch[] {
  const lines = diff.split("\n");
  const out: FilePatch[] = [];
  let i = 0;
  while (i < lines.length) {
    if (!lines[i]!.startsWith("--- ") || !lines[i + 1]?.startsWith("+++ ")) {
      i++;
      continue;
    }
    const oldName = lines[i]!.slice(4).split("\t")[0]!;
    const newName = lines[i + 1]!.slice(4).split("\t")[0]!;
    const name = newName === "/dev/null" ? oldName : newName;
    const patch: FilePatch = {
      path: name.replace(/^[ab]\//, ""),
      header: `${lines[i]}\n${lines[i + 1]}\n`,
      hunks: [],
      sites: 0,
      lines: [],
    };
    i += 2;
    const note = lines[i];
    if (note?.startsWith(tooLargeNote)) {
      // A summary instead of hunks: it goes with the headers, so a shortened diff keeps or drops both.
      patch.header += `${note}\n`;
      patch.sites = 1;
      patch.lines.push(Number(/from line (\d+)/.exec(note)?.[1] ?? 1));
      i++;
    }
    for (let m = hunkHeader.exec(lines[i] ?? ""); m; m = hunkHeader.exec(lines[i] ?? "")) {
      let oldLeft = m[1] === undefined ? 1 : Number(m[1]);
      let newLeft = m[3] === undefined ? 1 : Number(m[3]);
      let newLine = Math.max(1, Number(m[2]) + (newLeft === 0 ? 1 : 0));
      const text = [lines[i]!];
      let inRun = false;
      i++;
      while (i < lines.length && (oldLeft > 0 || newLeft > 0 || lines[i]!.startsWith("\\"))) {
        const line = lines[i]!;
        text.push(line);
        i++;
        if (line.startsWith("\\")) continue;
        const edited = line.startsWith("+") || line.startsWith("-");
        if (edited && !inRun) {
          patch.sites++;
          patch.lines.push(newLine);
        }
        inRun = edited;
        if (line.startsWith("+")) {
          newLeft--;
          newLine++;
        } else if (line.startsWith("-")) oldLeft--;
        else {
          oldLeft--;
          newLeft--;
          newLine++;
        }
      }
      patch.hunks.push(`${text.join("\n")}\n`);
    }
    out.push(patch);
  }
  return out;
}

/**
 * The longest front part of `patches` whose text costs at most `budget` (by `cost`, e.g. its length
 * as a JSON string): whole files; when not even the first file fits, that file's first whole hunks.
 * Never a part of a hunk. `cost` adds up over joined texts (`cost("")` counted once, a JSON
 * string's quotes): each part is measured once, not the growing front part again at every file.
 */
export function cutPatches(
  patches: FilePatch[],
  budget: number,
  cost: (text: string) => number,
): { diff: string; files: number; hunks: number } {
  const empty = cost("");
  const costOf = (text: string) => cost(text) - empty;
  let diff = "";
  let used = empty;
  let files = 0;
  for (const p of patches) {
    const text = p.header + p.hunks.join("");
    const c = costOf(text);
    if (used + c > budget) break;
    diff += text;
    used += c;
    files++;
  }
  if (files > 0 || patches.length === 0) return { diff, files, hunks: 0 };
  const first = patches[0]!;
  let hunks = 0;
  diff = first.header;
  used = empty + costOf(first.header);
  for (const h of first.hunks) {
    const c = costOf(h);
    if (used + c > budget) break;
    diff += h;
    used += c;
    hunks++;
  }
  return hunks === 0 ? { diff: "", files: 0, hunks: 0 } : { diff, files: 0, hunks };
}
