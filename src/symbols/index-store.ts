/**
 * The persistent symbol index: a file's document symbols (after the adapter's clean-up) stored
 * in the project's state folder under `$SCALPEL_HOME` (`state/<project>-<id>/symbols/<server key>/`,
 * outside the work tree: an index a repository ships could move `Price/times` onto the lines of
 * `Price/plus` and have an edit overwrite the wrong code), one JSON file per source file, keyed by the hash of
 * the file's text, plus `table.json`, a snapshot of the compact table (symbols/table.ts) that a
 * restart loads in one read instead of one per file: the small fields of every row and where its
 * texts are in the segment files beside it (symbols/segment.ts). The server key covers scalpel's version (the
 * adapters' clean-up is part of the answer), the adapter, the server's version as the adapter
 * finds it before launching it (its probe), and the launch settings — all known before the server
 * has started, so a restart answers from the index while the server is still loading.
 *
 * An entry is only ever used for exactly the text it was built from, so it cannot be stale: a file
 * changed while scalpel was down, or by the file watcher's report, or by scalpel's own writes hashes
 * differently and is asked for again. Crash-safe: each entry is written to a temp file and renamed
 * (text/write.ts); a torn or edited entry fails its checksum and is rebuilt. Two processes on one
 * project may write the same entry: the rename is atomic, so the last writer wins with a whole file.
 * Read-only projects keep the index in memory only: their table's rows (symbols/key-table.ts), packed
 * in one Buffer; this store then keeps nothing (it kept every file's symbols as objects, ~50 KB a
 * file on the JS heap, beside the same rows).
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, unlink } from "node:fs/promises";
import { join } from "node:path";
import type { DocumentSymbol } from "vscode-languageserver-protocol";
import type { Logger } from "../core/log.js";
import { projectStateDir, stateDirMode } from "../core/user-state.js";
import { version as scalpelVersion } from "../core/version.js";
import type { Sandbox } from "../security/sandbox.js";
import { writeFileAtomic } from "../text/write.js";

/** Where the index of the project at `root` is kept. */
export function symbolIndexFolder(root: string): string {
  return projectStateDir(root, "symbols");
}
/** The snapshot of the compact table, beside the per-file entries of one key. */
export const tableFileName = "table.json";

/** Bumped when the stored shape changes: older entries are then simply not found. */
const formatVersion = 4;

interface StoredEntry {
  v: number;
  rel: string;
  hash: string;
  symbols: DocumentSymbol[];
  /** sha256 of the JSON of { rel, hash, symbols }: a torn or edited file fails it. */
  sum: string;
}

/** What the index did since activation: the e2e tests count server requests with it. */
export interface IndexStats {
  /** Files whose symbols came from the index, without asking a server. */
  reused: number;
  /** Files whose symbols had to be requested (`textDocument/documentSymbol`). */
  requested: number;
  /** Entries found unreadable or failing their checksum (rebuilt on the spot). */
  corrupt: number;
  /** Entries dropped because their file left the project. */
  pruned: number;
}

/** What identifies a server's answers before it runs: its adapter, probed version and settings. */
export interface ServerIdentity {
  adapter: string;
  version?: string | undefined;
  settings: unknown;
}

export function textHash(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

export function serverKey(id: ServerIdentity): string {
  const basis = JSON.stringify([scalpelVersion, formatVersion, id.adapter, id.version ?? null, id.settings]);
  return `${id.adapter.replace(/[^a-z0-9-]/gi, "_")}-${createHash("sha256").update(basis).digest("hex").slice(0, 16)}`;
}

/**
 * One file's row of a stored table: text hash, size and mtime when hashed, the index of its
 * segment in the table's `segs`, where its paths and packed symbols are in it, and their checksum.
 */
export type TableRow = [
  hash: string,
  size: number,
  mtimeMs: number,
  seg: number,
  pathsAt: number,
  pathsLen: number,
  symsAt: number,
  symsLen: number,
  sum: string,
];

/** A stored table: the segments its rows are in, and the rows by file. */
export interface StoredTable {
  segs: string[];
  rows: Record<string, TableRow>;
}

/** The stored table's own format: older snapshots are not used (the entries rebuild it). */
const tableVersion = 5;

function checksum(value: unknown): string {
  return createHash("sha256").update(JSON.stringify(value)).digest("hex");
}

export class SymbolIndexStore {
  readonly stats: IndexStats = { reused: 0, requested: 0, corrupt: 0, pruned: 0 };
  /** Entries found corrupt once: reported once, then treated as missing until rewritten. */
  private readonly corrupt = new Set<string>();
  private folderReady = new Map<string, Promise<string | null>>();

  private readonly dir: string;

  constructor(
    sandbox: Sandbox,
    private readonly persist: boolean,
    private readonly log?: Logger,
    dir?: string,
  ) {
    this.dir = dir ?? symbolIndexFolder(sandbox.root);
  }

  /** The stored symbols of `rel` for exactly this text hash, or null (missing, stale or corrupt). */
  async get(key: string, rel: string, hash: string): Promise<DocumentSymbol[] | null> {
    if (!this.persist) {
      return null;
    }
    if (this.corrupt.has(`${key}/${rel}`)) return null;
    const dir = await this.folder(key, false);
    if (dir === null) return null;
    let raw: string;
    try {
      raw = await readFile(join(dir, entryName(rel)), "utf8");
    } catch {
      return null;
    }
    let entry: StoredEntry | null = null;
    try {
      const parsed = JSON.parse(raw) as StoredEntry;
      if (
        parsed.v === formatVersion &&
        parsed.rel === rel &&
        Array.isArray(parsed.symbols) &&
        parsed.sum === checksum({ rel: parsed.rel, hash: parsed.hash, symbols: parsed.symbols })
      )
        entry = parsed;
    } catch {
      entry = null;
    }
    if (entry === null) {
      this.corrupt.add(`${key}/${rel}`);
      this.stats.corrupt++;
      this.log?.warn(`symbol index entry of ${rel} is corrupt (checksum or format); rebuilding it`);
      return null;
    }
    return entry.hash === hash ? entry.symbols : null;
  }

  /** Records a file's symbols; persisting happens in the background and never fails a call. */
  put(key: string, rel: string, hash: string, symbols: DocumentSymbol[]): Promise<void> {
    this.corrupt.delete(`${key}/${rel}`);
    if (!this.persist) {
      return Promise.resolve();
    }
    return this.write(key, rel, hash, symbols).catch((e) =>
      this.log?.warn(
        `could not store the symbols of ${rel} in the index`,
        e instanceof Error ? e.message : e,
      ),
    );
  }

  /** Drops the entry of a file that left the project. */
  async remove(key: string, rel: string): Promise<void> {
    this.stats.pruned++;
    if (!this.persist) {
      return;
    }
    const dir = await this.folder(key, false);
    if (dir !== null) await unlink(join(dir, entryName(rel))).catch(() => {});
  }

  /** The stored table of `key`, or null (none yet, another format, or corrupt: then rebuilt). */
  async loadTable(key: string): Promise<StoredTable | null> {
    if (!this.persist) return null;
    const dir = await this.folder(key, false);
    if (dir === null) return null;
    let raw: string;
    try {
      raw = await readFile(join(dir, tableFileName), "utf8");
    } catch {
      return null;
    }
    try {
      // The checksum covers the text as written (saveTable): no second serialization to check it.
      const at = raw.indexOf(',"segs":');
      const parsed = JSON.parse(raw) as { v: number; sum: string } & StoredTable;
      if (parsed.v !== tableVersion) return null;
      const body = at < 0 ? "" : raw.slice(at + 1, raw.length - 1);
      if (
        parsed.sum === createHash("sha256").update(body).digest("hex") &&
        Array.isArray(parsed.segs) &&
        parsed.rows !== null &&
        typeof parsed.rows === "object"
      )
        return { segs: parsed.segs, rows: parsed.rows };
    } catch {
      // Reported below.
    }
    this.stats.corrupt++;
    this.log?.warn("the symbol index table is corrupt (checksum or format); it is rebuilt from the entries");
    return null;
  }

  /** Replaces the stored table of `key` (temp + rename); never fails a call. */
  async saveTable(key: string, table: StoredTable): Promise<void> {
    if (!this.persist) return;
    try {
      const dir = await this.folder(key, true);
      if (dir === null) return;
      const body = `"segs":${JSON.stringify(table.segs)},"rows":${JSON.stringify(table.rows)}`;
      const sum = createHash("sha256").update(body).digest("hex");
      await writeFileAtomic(
        join(dir, tableFileName),
        Buffer.from(`{"v":${tableVersion},"sum":"${sum}",${body}}`),
      );
    } catch (e) {
      this.log?.warn("could not store the symbol index table", e instanceof Error ? e.message : e);
    }
  }

  /** The key's folder (created on the first write), or null when read-only or not usable. */
  keyFolder(key: string, create: boolean): Promise<string | null> {
    return this.persist ? this.folder(key, create) : Promise.resolve(null);
  }

  private async write(key: string, rel: string, hash: string, symbols: DocumentSymbol[]): Promise<void> {
    const dir = await this.folder(key, true);
    if (dir === null) return;
    const body: StoredEntry = { v: formatVersion, rel, hash, symbols, sum: checksum({ rel, hash, symbols }) };
    await writeFileAtomic(join(dir, entryName(rel)), Buffer.from(JSON.stringify(body), "utf8"));
  }

  /** The key's folder (created, for the user alone, on first write). */
  private folder(key: string, create: boolean): Promise<string | null> {
    const known = this.folderReady.get(key);
    if (known) return known;
    const made = (async () => {
      // Keys are made by serverKey (letters, digits, '-', '_'): never a path of their own.
      if (!/^[A-Za-z0-9_-]+$/.test(key)) return null;
      const abs = join(this.dir, key);
      if (create) {
        try {
          await mkdir(abs, { recursive: true, mode: stateDirMode });
        } catch (e) {
          this.log?.warn(
            "the symbol index folder is not usable; symbols are indexed for this session only",
            e,
          );
          return null;
        }
      }
      return abs;
    })();
    // Only a created folder is remembered: a read before the first write must look again later.
    if (create) this.folderReady.set(key, made);
    return made;
  }
}

/** One entry per source file, named by its path's hash (paths may be long or hold any character). */
function entryName(rel: string): string {
  return `${createHash("sha1").update(rel).digest("hex")}.json`;
}
