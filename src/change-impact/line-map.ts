/**
 * Where a file's text changed, line by line: the work tree's lines that are new or changed (the
 * "inside the change" of references), and where each unchanged base line is now (a site found in
 * the base text is reported at its line today). Lines are compared trimmed of their line ending;
 * a diff that takes longer than the bound counts the whole file as changed (jsdiff is D² and runs
 * on the main thread: edits/diff.ts measured it).
 */
import { diffArrays } from "diff";

export interface LineMap {
  /** 0-based work tree lines that are inside the change. */
  changed: ReadonlySet<number>;
  /** The 0-based work tree line an unchanged base line is at now; null when it changed or went. */
  toNew(baseLine: number): number | null;
}

const split = (t: string) => t.split(/\r?\n/);
const diffMillis = 1_000;

export function lineMap(before: string | null, after: string | null): LineMap {
  const newLines = after === null ? [] : split(after);
  if (before === null || after === null) {
    return { changed: new Set(newLines.map((_, i) => i)), toNew: () => null };
  }
  const oldLines = split(before);
  const parts = diffArrays(oldLines, newLines, { timeout: diffMillis });
  if (parts === undefined) {
    return { changed: new Set(newLines.map((_, i) => i)), toNew: () => null };
  }
  const changed = new Set<number>();
  const kept = new Map<number, number>();
  let o = 0;
  let n = 0;
  for (const p of parts) {
    const count = p.value.length;
    if (p.added) {
      for (let k = 0; k < count; k++) changed.add(n + k);
      n += count;
    } else if (p.removed) {
      o += count;
    } else {
      for (let k = 0; k < count; k++) kept.set(o + k, n + k);
      o += count;
      n += count;
    }
  }
  return { changed, toNew: (line) => kept.get(line) ?? null };
}
