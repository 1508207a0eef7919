/**
 * The compact tables of the symbol index (symbols/table.ts), one per index key, as the service
 * keeps them: loaded from their snapshot on first use, rows recorded and forgotten, the snapshot
 * written once changes stop, entries of files that left the project pruned.
 */
import { stat } from "node:fs/promises";
import { sep } from "node:path";
import type { DocumentSymbol } from "vscode-languageserver-protocol";
import type { Logger } from "../core/log.js";
import type { Sandbox } from "../security/sandbox.js";
import { SymbolIndexStore, type TableRow } from "./index-store.js";
import type { StatLike } from "./stat-all.js";
import { entryOf, fromRow, type TableEntry, toRow } from "./table.js";

/**
 * How long after the last change the table snapshot is written (the build writes it at its end).
 * Each change pushes the write back: written 3 s after the first change instead, the snapshot was
 * serialized again every 3 s of an index build (13 times, up to 20 MB of JSON and its copies each,
 * on the generated 5k project), which made most of scalpel's peak RSS there (524 MB against
 * 102 MB live after the build). Rows are safe meanwhile: every file's entry is written on its own.
 */
const saveDelayMs = 3000;

export class SymbolTables {
  readonly store: SymbolIndexStore;
  private readonly tables = new Map<string, Promise<Map<string, TableEntry>>>();
  private readonly loaded = new Map<string, Map<string, TableEntry>>();
  private readonly saves = new Map<string, NodeJS.Timeout>();

  constructor(sandbox: Sandbox, writable: boolean, log: Logger) {
    this.store = new SymbolIndexStore(sandbox, writable, log);
  }

  /** The table of `key`, loaded from its snapshot the first time. */
  table(key: string): Promise<Map<string, TableEntry>> {
    let t = this.tables.get(key);
    if (!t) {
      t = (async () => {
        const rows = await this.store.loadTable(key);
        const table = new Map<string, TableEntry>();
        for (const [rel, row] of Object.entries(rows ?? {})) {
          const entry = Array.isArray(row) ? fromRow(row) : null;
          if (entry) table.set(rel, entry);
        }
        this.loaded.set(key, table);
        return table;
      })();
      this.tables.set(key, t);
    }
    return t;
  }

  /** The table of `key` if it is loaded already (no disk). */
  loadedTable(key: string): Map<string, TableEntry> | undefined {
    return this.loaded.get(key);
  }

  /** Every loaded table's entry for `rel`. */
  *entriesOf(rel: string): Generator<TableEntry> {
    for (const table of this.loaded.values()) {
      const entry = table.get(rel);
      if (entry) yield entry;
    }
  }

  /** Every loaded table's entries of files below the folder `rel`. */
  *entriesBelow(rel: string): Generator<TableEntry> {
    const below = `${rel}/`;
    for (const table of this.loaded.values()) {
      for (const [r, entry] of table) if (r.startsWith(below)) yield entry;
    }
  }

  /** Records a file's symbols for `hash` (and writes its entry when `persist`). */
  record(
    key: string,
    rel: string,
    hash: string,
    st: StatLike | null,
    symbols: readonly DocumentSymbol[],
    fresh: boolean,
    persist: boolean,
  ): void {
    const table = this.loaded.get(key);
    if (table) table.set(rel, entryOf(hash, st, symbols, fresh));
    if (persist) void this.store.put(key, rel, hash, [...symbols]);
    this.scheduleSave(key);
  }

  /** A file left the disk: its rows and entries go. */
  forget(rel: string): void {
    for (const [key, table] of this.loaded) {
      if (!table.delete(rel)) continue;
      void this.store.remove(key, rel);
      this.scheduleSave(key);
    }
  }

  /** Drops the rows of files not in `keep` (the build's full list), and their entries. */
  async prune(keep: ReadonlySet<string>): Promise<void> {
    for (const [key, table] of this.loaded) {
      for (const rel of [...table.keys()]) {
        if (keep.has(rel)) continue;
        table.delete(rel);
        await this.store.remove(key, rel);
        this.scheduleSave(key);
      }
    }
  }

  /** The rows not in `present` (a fresh walk) whose files are gone from under `root`. */
  async gone(root: string, present: ReadonlySet<string>): Promise<string[]> {
    const out: string[] = [];
    for (const table of this.loaded.values()) {
      for (const rel of [...table.keys()]) {
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
    const table = this.loaded.get(key);
    if (!table) return;
    const rows: Record<string, TableRow> = {};
    for (const [rel, e] of table) rows[rel] = toRow(e);
    await this.store.saveTable(key, rows);
  }
}
