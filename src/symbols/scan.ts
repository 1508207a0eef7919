/**
 * A directory-wide symbol query over the compact table: a row the file watcher vouches for is
 * trusted as is, others by size and mtime, and only files that changed are read — and asked of
 * their server only if their text contains the name (the server is waited for: the gap is filled,
 * not skipped).
 */

import { isAppError } from "../core/errors.js";
import type { Logger } from "../core/log.js";
import type { CheckedPath } from "../security/sandbox.js";
import { readProjectText } from "../text/read.js";
import { parseNamePath } from "./name-path.js";
import { statAll } from "./stat-all.js";
import type { ScanHit, ScanResult, SymbolFile } from "./symbol-file.js";
import { sameStat, type TableEntry } from "./table.js";
import type { SymbolNode } from "./tree.js";

/** What a scan reads from the symbol service. */
export interface ScanSource {
  /** The file's table row, and whether its server's watcher covers it now. */
  row(file: CheckedPath): Promise<{ entry: TableEntry | undefined; watched: boolean }>;
  /** Whether the row may hold a match of the scan's pattern (its paths hold the pattern's tail). */
  may(entry: TableEntry): boolean;
  /** The row's tree, or null when its bytes are unreadable (the file is then read again). */
  tree(file: CheckedPath, entry: TableEntry): SymbolNode[] | null;
  /** The file's symbols from the index or its server. */
  read(file: CheckedPath): Promise<SymbolFile>;
  /** The file left the disk. */
  forget(rel: string): void;
  log: Logger;
}

export async function scanFiles(
  source: ScanSource,
  files: readonly CheckedPath[],
  namePath: string,
): Promise<ScanResult> {
  const pattern = parseNamePath(namePath);
  const name = pattern.segments.at(-1)!.name;
  const t0 = Date.now();
  const hits: (ScanHit | null)[] = new Array(files.length).fill(null);
  const problems = new Set<string>();
  let missing = 0;
  const unsure: number[] = [];
  const gaps: number[] = [];
  const rows: (TableEntry | undefined)[] = [];
  const watchedAt: boolean[] = [];
  for (const [i, f] of files.entries()) {
    const { entry, watched } = await source.row(f);
    rows[i] = entry;
    watchedAt[i] = watched;
    if (entry?.fresh && watched) {
      if (source.may(entry)) {
        const roots = source.tree(f, entry);
        if (roots) hits[i] = { path: f, roots };
        else gaps.push(i);
      }
    } else unsure.push(i);
  }
  const stats = await statAll(unsure.map((i) => files[i]!.abs));
  for (const [k, i] of unsure.entries()) {
    const f = files[i]!;
    const st = stats[k];
    const entry = rows[i];
    if (st === null) {
      // Gone since the list was made: its row and entry go too.
      source.forget(f.rel);
      continue;
    }
    if (entry && st !== undefined && sameStat(entry, st)) {
      entry.fresh = watchedAt[i] === true;
      if (source.may(entry)) {
        const roots = source.tree(f, entry);
        if (roots) hits[i] = { path: f, roots };
        else gaps.push(i);
      }
    } else gaps.push(i);
  }
  for (const i of gaps) {
    const f = files[i]!;
    let text: string;
    try {
      text = (await readProjectText(f.abs, f.rel)).text;
    } catch {
      continue;
    }
    // A name a file does not contain is not declared there: only the others need symbols.
    if (!text.includes(name)) continue;
    try {
      const found = await source.read(f);
      hits[i] = { path: f, roots: found.roots };
    } catch (error) {
      if (!isAppError(error) || error.code !== "language_server_unavailable") throw error;
      problems.add(error.message);
      missing++;
    }
  }
  source.log.debug(
    `scan for ${name}: ${files.length} files, ${files.length - unsure.length} fresh, ${unsure.length - gaps.length} by size and mtime, ${gaps.length} read, in ${Date.now() - t0} ms`,
  );
  return {
    hits: hits.filter((h): h is ScanHit => h !== null),
    problems,
    missing,
    current: files.length - gaps.length,
    total: files.length,
  };
}
