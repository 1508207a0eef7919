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
