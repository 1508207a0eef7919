/**
 * The compact tables of the symbol index (symbols/table.ts), one per index key, as the service
 * keeps them: loaded from their snapshot on first use, rows recorded (their texts appended to this
 * process's segment, symbols/segment.ts) and forgotten, the snapshot written once changes stop,
 * entries of files that left the project pruned, segments compacted when most of their bytes are
 * rows that were replaced.
 */
import { stat } from "node:fs/promises";
import { sep } from "node:path";
import type { DocumentSymbol } from "vscode-languageserver-protocol";
import type { Logger } from "../core/log.js";
import type { Sandbox } from "../security/sandbox.js";
import { SymbolIndexStore } from "./index-store.js";
import { type KeyTable, loadKeyTable, newKeyTable } from "./key-table.js";
import type { NamePathPattern } from "./name-path.js";
import { removeStaleSegments, type Segment } from "./segment.js";
import type { StatLike } from "./stat-all.js";
import { pathNeedle, readSymbols, type TableEntry } from "./table.js";

/**
 * How long after the last change the table snapshot is written (the build writes it at its end).
 * Each change pushes the write back: written 3 s after the first change instead, the snapshot was
 * serialized again every 3 s of an index build, which made most of scalpel's peak RSS on the
 * generated 5k project (524 MB against 102 MB live after the build). Rows are safe meanwhile:
 * every file's entry is written on its own.
 */
const saveDelayMs = 3000;

/** Scans of fewer files read each row's paths rather than every segment's (`matcher`). */
const few = 256;

export class SymbolTables {
  readonly store: SymbolIndexStore;
  private readonly tables = new Map<string, Promise<KeyTable>>();
  private readonly loaded = new Map<string, KeyTable>();
  private readonly saves = new Map<string, NodeJS.Timeout>();

  constructor(
    sandbox: Sandbox,
    writable: boolean,
    private readonly log: Logger,
  ) {
    this.store = new SymbolIndexStore(sandbox, writable, log);
  }

  /** The table of `key`, loaded from its snapshot the first time. */
  table(key: string): Promise<ReadonlyMap<string, TableEntry>> {
    return this.keyTable(key).then((t) => t.rows);
  }

  /** The table of `key` if it is loaded already (no disk). */
  loadedTable(key: string): ReadonlyMap<string, TableEntry> | undefined {
    return this.loaded.get(key)?.rows;
  }

  /** The row's symbols, or null when its bytes are gone or corrupt (then the row is dropped). */
  symbolsOf(entry: TableEntry): DocumentSymbol[] | null {
    const symbols = readSymbols(entry);
    if (symbols !== null) return symbols;
    this.store.stats.corrupt++;
    this.log.warn("a symbol table row is unreadable or fails its checksum; it is rebuilt");
    for (const t of this.loaded.values()) for (const [rel, e] of t.rows) if (e === entry) t.rows.delete(rel);
    return null;
  }

  /**
   * Which rows may hold a match of the pattern (symbols/table.ts `pathNeedle`): found by scanning
   * the segments' paths files, so no row is read for a file that cannot match; for a scan of fewer
   * than `few` files, each row's paths are read instead (a folder's files, not 20 MB of paths).
   */
  matcher(pattern: NamePathPattern, substring: boolean, files = Infinity): (entry: TableEntry) => boolean {
    const needle = Buffer.from(pathNeedle(pattern, substring), "utf8");
    const hits = new Set<TableEntry>();
    const scanned = new Map<Segment, number>();
    for (const t of files < few ? [] : this.loaded.values()) {
      for (const seg of t.segs) {
        scanned.set(seg, seg.paths.size);
        let from = 0;
        for (let o = seg.paths.find(needle, from); o >= 0; o = seg.paths.find(needle, from)) {
          const k = seg.recordAt(o);
          const rel = k < 0 ? undefined : seg.owners[k];
          const e = rel === undefined ? undefined : t.rows.get(rel);
          if (
            e &&
            e.seg === seg &&
            e.pathsAt === seg.starts[k] &&
            o + needle.length <= e.pathsAt + e.pathsLen
          ) {
            hits.add(e);
            from = e.pathsAt + e.pathsLen;
          } else from = o + 1;
        }
      }
    }
    // A row written (or moved by a compaction) since the scan is looked at on its own.
    return (entry) =>
      hits.has(entry) ||
      (entry.pathsAt + entry.pathsLen > (scanned.get(entry.seg) ?? -1) &&
        (entry.seg.paths.read(entry.pathsAt, entry.pathsLen)?.includes(needle) ?? true));
  }

  /** Every loaded table's entry for `rel`. */
  *entriesOf(rel: string): Generator<TableEntry> {
    for (const t of this.loaded.values()) {
      const entry = t.rows.get(rel);
      if (entry) yield entry;
    }
  }

  /** Every loaded table's entries of files below the folder `rel`. */
  *entriesBelow(rel: string): Generator<TableEntry> {
    const below = `${rel}/`;
    for (const t of this.loaded.values()) {
      for (const [r, entry] of t.rows) if (r.startsWith(below)) yield entry;
    }
  }

  /**
   * Records a file's symbols for `hash` (and writes its entry when `persist`); null symbols: the
   * row holds this text already and only takes the new size, mtime and freshness.
   */
  record(
    key: string,
    rel: string,
    hash: string,
    st: StatLike | null,
    symbols: readonly DocumentSymbol[] | null,
    fresh: boolean,
    persist: boolean,
  ): void {
    const t = this.loaded.get(key);
    if (t) t.set(rel, hash, st, symbols, fresh);
    if (persist && symbols) void this.store.put(key, rel, hash, [...symbols]);
    this.scheduleSave(key);
  }

  /** A file left the disk: its rows and entries go. */
  forget(rel: string): void {
    for (const [key, t] of this.loaded) {
      if (!t.rows.delete(rel)) continue;
      void this.store.remove(key, rel);
      this.scheduleSave(key);
    }
  }

  /** Drops the rows of files not in `keep` (the build's full list), and their entries. */
  async prune(keep: ReadonlySet<string>): Promise<void> {
    for (const [key, t] of this.loaded) {
      for (const rel of [...t.rows.keys()]) {
        if (keep.has(rel)) continue;
        t.rows.delete(rel);
        await this.store.remove(key, rel);
        this.scheduleSave(key);
      }
    }
  }

  /** The rows not in `present` (a fresh walk) whose files are gone from under `root`. */
  async gone(root: string, present: ReadonlySet<string>): Promise<string[]> {
    const out: string[] = [];
    for (const t of this.loaded.values()) {
      for (const rel of [...t.rows.keys()]) {
        if (present.has(rel)) continue;
        const missing = await stat(`${root}${sep}${rel}`).then(
          () => false,
          (e: NodeJS.ErrnoException) => e.code === "ENOENT",
        );
        if (missing) out.push(rel);
      }
    }
    return out;
  }

  /** Writes the table snapshots now (the build's end). */
  async save(): Promise<void> {
    for (const key of [...this.saves.keys()]) {
      clearTimeout(this.saves.get(key));
      this.saves.delete(key);
      await this.saveTable(key);
    }
  }

  private keyTable(key: string): Promise<KeyTable> {
    let t = this.tables.get(key);
    if (!t) {
      t = (async () => {
        const stored = await this.store.loadTable(key);
        // Created now: rows are appended to this process's segment in it (null: kept in memory).
        const dir = await this.store.keyFolder(key, true);
        const table =
          stored && dir !== null ? loadKeyTable(dir, stored, this.log) : newKeyTable(dir, this.log);
        this.loaded.set(key, table);
        return table;
      })();
      this.tables.set(key, t);
    }
    return t;
  }

  private scheduleSave(key: string): void {
    clearTimeout(this.saves.get(key));
    const timer = setTimeout(() => {
      this.saves.delete(key);
      void this.saveTable(key);
    }, saveDelayMs);
    timer.unref();
    this.saves.set(key, timer);
  }

  private async saveTable(key: string): Promise<void> {
    const t = this.loaded.get(key);
    if (!t) return;
    const dir = await this.store.keyFolder(key, true);
    if (dir === null) return;
    t.compactIfWasteful();
    const stored = t.stored();
    await this.store.saveTable(key, stored);
    await removeStaleSegments(dir, new Set(t.segs.map((s) => s.name)));
  }
}
