/** Unified diffs for previews and results, with line endings normalised so CRLF files read cleanly. */
import { FILE_HEADERS_ONLY, formatPatch, structuredPatch } from "diff";
import { stripBom } from "./text.js";

export interface FileDiff {
  diff: string;
  added: number;
  removed: number;
}

const context = 3;

/** `before`/`after` null: the file does not exist on that side. */
export function unifiedDiff(rel: string, before: string | null, after: string | null): FileDiff {
  const a = display(before);
  const b = display(after);
  const oldName = before === null ? "/dev/null" : `a/${rel}`;
  const newName = after === null ? "/dev/null" : `b/${rel}`;
  if (a === b) return { diff: "", added: 0, removed: 0 };
  const patch = structuredPatch(oldName, newName, a, b, undefined, undefined, { context });
  let added = 0;
  let removed = 0;
  for (const hunk of patch.hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith("+")) added++;
      else if (line.startsWith("-")) removed++;
    }
  }
  return { diff: formatPatch(patch, FILE_HEADERS_ONLY), added, removed };
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
 * Never a part of a hunk.
 */
export function cutPatches(
  patches: FilePatch[],
  budget: number,
  cost: (text: string) => number,
): { diff: string; files: number; hunks: number } {
  let diff = "";
  let files = 0;
  for (const p of patches) {
    const text = p.header + p.hunks.join("");
    if (cost(diff + text) > budget) break;
    diff += text;
    files++;
  }
  if (files > 0 || patches.length === 0) return { diff, files, hunks: 0 };
  const first = patches[0]!;
  let hunks = 0;
  diff = first.header;
  for (const h of first.hunks) {
    if (cost(diff + h) > budget) break;
    diff += h;
    hunks++;
  }
  return hunks === 0 ? { diff: "", files: 0, hunks: 0 } : { diff, files: 0, hunks };
}
