/**
 * The symbol service of one project (`project.symbols`): a file's symbols from memory, then the
 * persistent index, then the language server, in that order — a file whose current text the index
 * holds needs no server, no readiness wait and no didOpen. Only callers that go on to send a
 * position request need the document open in the server: they call `open` on the result, and the
 * type (`OpenSymbolFile`) says they did.
 *
 * Directory-wide queries (`scan`) read the compact table (symbols/table.ts) instead of the disk:
 * a row the file watcher vouches for is trusted as is, others by size and mtime, and only files
 * that changed are read. Measured on the generated 5k-file project before this service: an
 * unscoped `find_symbol Core/compute` opened every file that mentions `compute` in the server
 * (26–29 s), and a restart's first find_symbol waited for the server to load (1.3 s after the
 * MCP handshake).
 */
import { stat } from "node:fs/promises";
import { dirname, sep } from "node:path";
import type { DocumentSymbol, SymbolInformation } from "vscode-languageserver-protocol";
import { isAppError } from "../core/errors.js";
import type { Logger } from "../core/log.js";
import { type CodeFilesHost, codeFilesUnder } from "../files/code-files.js";
import type { LanguageAdapter } from "../languages/adapter.js";
import type { LspSession } from "../lsp/session.js";
import type { OpenDocument } from "../lsp/types.js";
import type { CheckedPath } from "../security/sandbox.js";
import type { ServerPool } from "../servers/server-pool.js";
import { readProjectText } from "../text/read.js";
import { SymbolIndexStore, serverKey, type TableRow, textHash } from "./index-store.js";
import { parseNamePath } from "./name-path.js";
import { entryOf, fromRow, mayMatch, sameStat, symbolsOf, type TableEntry, toRow } from "./table.js";
import { buildTree, hierarchyFromFlat, isDocumentSymbols, type SymbolNode } from "./tree.js";
import { TreeCache } from "./trees.js";

/** A file's symbols for exactly `text`, as it is on disk; the server may never have seen it. */
export interface SymbolFile {
  path: CheckedPath;
  text: string;
  roots: SymbolNode[];
  adapter: LanguageAdapter;
}

/** A file's symbols with the document open in its server: positions may be sent about it. */
export interface OpenSymbolFile extends SymbolFile {
  doc: OpenDocument;
  session: LspSession;
}

/** How far the index is, for answers that are not complete yet. */
export interface IndexProgress {
  indexed: number;
  total: number;
}

/** One file of a directory scan that may declare the name looked for. */
export interface ScanHit {
  path: CheckedPath;
  roots: SymbolNode[];
}

export interface ScanResult {
  hits: ScanHit[];
  /** Why files were left out (their server is unavailable and the index does not hold them). */
  problems: Set<string>;
  /** Files left out for that reason. */
  missing: number;
  /** Files whose current text the table held (answered without reading them). */
  current: number;
  /** Files scanned. */
  total: number;
}

type StatLike = { size: number; mtimeMs: number };

/**
 * How long after the last change the table snapshot is written (the build writes it at its end).
 * Each change pushes the write back: written 3 s after the first change instead, the snapshot was
 * serialized again every 3 s of an index build (13 times, up to 20 MB of JSON and its copies each,
 * on the generated 5k project), which made most of scalpel's peak RSS there (524 MB against
 * 102 MB live after the build). Rows are safe meanwhile: every file's entry is written on its own.
 */
const saveDelayMs = 3000;

/** What the symbol service needs of its project. */
export interface SymbolHost extends CodeFilesHost {
  readonly pool: ServerPool;
  /** Nothing is written under `.scalpel/` (the index) when set. */
  readonly readOnly: boolean;
  readonly log: Logger;
}

export class SymbolService {
  readonly store: SymbolIndexStore;
  /** Files opened in a server by this service (didOpen or a re-sync): the e2e tests count them. */
  opened = 0;
  /** Set by the index build while it runs. */
  progress: IndexProgress | null = null;
  private readonly keys = new Map<string, Promise<string | null>>();
  private readonly tables = new Map<string, Promise<Map<string, TableEntry>>>();
  private readonly loaded = new Map<string, Map<string, TableEntry>>();
  private readonly resolvedKeys = new Map<string, string | null>();
  private readonly trees = new TreeCache();
  private readonly pending = new Map<string, Promise<{ text: string; symbols: DocumentSymbol[] }>>();
  private readonly sessions = new Map<string, LspSession>();
  private readonly listening = new WeakSet<LspSession>();
  private readonly saves = new Map<string, NodeJS.Timeout>();
  private list: CheckedPath[] | null = null;
  private listValid = false;

  private readonly log: Logger;

  constructor(private readonly project: SymbolHost) {
    this.log = project.log.child("index");
    this.store = new SymbolIndexStore(project.sandbox, !project.readOnly, this.log);
  }

  /** The symbols of a file as it is on disk: memory, then the index, then its server. */
  async file(path: CheckedPath, signal?: AbortSignal): Promise<SymbolFile> {
    const adapter = this.adapterOf(path);
    const key = await this.keyOf(adapter);
    const st = await stat(path.abs).catch(() => null);
    const text = (await readProjectText(path.abs, path.rel)).text;
    return this.forText(path, adapter, key, text, st, signal);
  }

  /**
   * Opens the file in its server (after bringing open documents up to the disk when
   * `refreshOpen`), for a position request; the symbols are those of the text the server has.
   */
  async open(file: SymbolFile, signal?: AbortSignal, refreshOpen = true): Promise<OpenSymbolFile> {
    const { session, adapter } = this.sessionOf(file.path);
    await session.whenReady(signal);
    if (refreshOpen) await session.refreshOpenDocuments();
    const doc = await session.sync(file.path.abs);
    this.opened++;
    if (doc.text === file.text) return { ...file, doc, session };
    const key = await this.keyOf(adapter);
    const again = await this.forText(file.path, adapter, key, doc.text, null, signal);
    return { ...again, doc, session };
  }

  /** Symbols known for exactly this text of a file (memory or the table), without any server or disk. */
  cached(abs: string, text: string): SymbolNode[] | null {
    const hash = textHash(text);
    const tree = this.trees.get(abs, hash);
    if (tree) return tree;
    const adapter = this.project.pool.adapterForPath(abs);
    const key = adapter ? this.resolvedKeys.get(adapter.id) : undefined;
    const table = key ? this.loaded.get(key) : undefined;
    const entry = table?.get(this.relOf(abs));
    if (!entry || entry.hash !== hash) {
      this.log.debug(
        `no symbols known for ${this.relOf(abs)} (${entry ? "other text" : table ? "not in the table" : "no table"})`,
      );
      return null;
    }
    return this.treeOf(abs, entry);
  }

  /** The code files under `rel` (a folder, "" for all): from the last walk while the watcher vouches for it. */
  async codeFiles(rel: string, signal?: AbortSignal): Promise<CheckedPath[]> {
    await this.drain();
    const start = rel === "" || rel === "." ? "" : `${rel.replace(/\/+$/, "")}/`;
    const known = this.list && this.listValid && this.watching();
    // A folder's files without a list to trust: its own walk, not the whole project's.
    if (!known && start !== "") return codeFilesUnder(this.project, rel, signal);
    if (!known || !this.list) {
      // Set before the walk: a change reported while it runs makes the next call walk again.
      this.listValid = this.watching();
      this.list = await codeFilesUnder(this.project, "", signal);
      void this.pruneGone(this.list);
    }
    return start === "" ? [...this.list] : this.list.filter((f) => f.rel.startsWith(start));
  }

  /**
   * The files among `files` that may hold a match of `namePath` (its last name containing the
   * pattern's with `substring`), with their trees: rows of the table that are current need no disk read and no server; a file
   * the table does not hold for its current text is read, and asked of its server only if its
   * text contains the name (the server is waited for: the gap is filled, not skipped).
   */
  async scan(
    files: readonly CheckedPath[],
    namePath: string,
    substring: boolean,
    signal?: AbortSignal,
  ): Promise<ScanResult> {
    const pattern = parseNamePath(namePath);
    const name = pattern.segments.at(-1)!.name;
    const t0 = Date.now();
    this.track(files);
    await this.drain();
    const hits: (ScanHit | null)[] = new Array(files.length).fill(null);
    const problems = new Set<string>();
    let missing = 0;
    const unsure: number[] = [];
    const rows: (TableEntry | undefined)[] = [];
    for (const [i, f] of files.entries()) {
      const adapter = this.project.pool.adapterForPath(f.rel);
      const key = adapter ? await this.keyOf(adapter) : null;
      const entry = key ? (await this.table(key)).get(f.rel) : undefined;
      rows[i] = entry;
      if (entry?.fresh && adapter && this.watched(adapter.id, f.abs)) {
        if (mayMatch(entry, pattern, substring)) hits[i] = { path: f, roots: this.treeOf(f.abs, entry) };
      } else unsure.push(i);
    }
    const stats = await statAll(unsure.map((i) => files[i]!.abs));
    const gaps: number[] = [];
    for (const [k, i] of unsure.entries()) {
      const f = files[i]!;
      const st = stats[k];
      const entry = rows[i];
      if (st === null) {
        // Gone since the list was made: its row and entry go too.
        this.forget(f.rel);
        continue;
      }
      if (entry && st !== undefined && sameStat(entry, st)) {
        const adapter = this.project.pool.adapterForPath(f.rel);
        entry.fresh = adapter !== null && this.watched(adapter.id, f.abs);
        if (mayMatch(entry, pattern, substring)) hits[i] = { path: f, roots: this.treeOf(f.abs, entry) };
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
        const found = await this.file(f, signal);
        hits[i] = { path: f, roots: found.roots };
      } catch (error) {
        if (!isAppError(error) || error.code !== "language_server_unavailable") throw error;
        problems.add(error.message);
        missing++;
      }
    }
    this.log.debug(
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

  /**
   * For the index build: whether the index holds `file`'s current text (recording it in the table
   * when only its entry did), "gone" when it left the disk (then pruned).
   */
  async check(file: CheckedPath): Promise<"indexed" | "missing" | "gone"> {
    const adapter = this.project.pool.adapterForPath(file.rel);
    const key = adapter ? await this.keyOf(adapter) : null;
    if (!adapter || key === null) return "missing";
    const table = await this.table(key);
    const st = await stat(file.abs).catch(() => null);
    if (st === null) {
      this.forget(file.rel);
      return "gone";
    }
    const entry = table.get(file.rel);
    if (entry && ((entry.fresh && this.watched(adapter.id, file.abs)) || sameStat(entry, st))) {
      this.store.stats.reused++;
      return "indexed";
    }
    const text = (await readProjectText(file.abs, file.rel)).text;
    const hash = textHash(text);
    if (entry && entry.hash === hash) {
      this.store.stats.reused++;
      this.record(key, file, adapter.id, hash, st, symbolsOf(entry), false);
      return "indexed";
    }
    const stored = await this.store.get(key, file.rel, hash);
    if (!stored) return "missing";
    this.store.stats.reused++;
    this.record(key, file, adapter.id, hash, st, stored, false);
    return "indexed";
  }

  /** Drops the rows of files not in `present` (the build's full list), and their entries. */
  async prune(present: readonly CheckedPath[]): Promise<void> {
    const keep = new Set(present.map((f) => f.rel));
    for (const [key, table] of this.loaded) {
      for (const rel of [...table.keys()]) {
        if (keep.has(rel)) continue;
        table.delete(rel);
        await this.store.remove(key, rel);
        this.scheduleSave(key);
      }
    }
  }

  /** Drops rows of files that are not in a fresh walk and no longer on disk (a delete seen by the walk). */
  private async pruneGone(list: readonly CheckedPath[]): Promise<void> {
    const present = new Set(list.map((f) => f.rel));
    const root = this.project.root;
    for (const table of this.loaded.values()) {
      for (const rel of [...table.keys()]) {
        if (present.has(rel)) continue;
        const gone = await stat(`${root}${sep}${rel}`).then(
          () => false,
          (e: NodeJS.ErrnoException) => e.code === "ENOENT",
        );
        if (gone) this.forget(rel);
      }
    }
  }

  /** Writes the table snapshots now (the build's end). */
  async save(): Promise<void> {
    for (const key of [...this.saves.keys()]) {
      clearTimeout(this.saves.get(key));
      this.saves.delete(key);
      await this.saveTable(key);
    }
  }

  // ---- internals ----

  /** The adapter that serves a file; its server is not needed (nor started) for that. */
  private adapterOf(path: CheckedPath): LanguageAdapter {
    return this.project.pool.adapterForPath(path.rel) ?? this.sessionOf(path).adapter;
  }

  /** Listens to the disk changes each server's watcher reports (once per adapter per scan). */
  private track(files: readonly CheckedPath[]): void {
    const seen = new Set<string>();
    for (const f of files) {
      const ext = f.rel.slice(f.rel.lastIndexOf("."));
      if (seen.has(ext)) continue;
      seen.add(ext);
      try {
        this.sessionOf(f);
      } catch {
        // No server for it now: its rows are checked by size and mtime.
      }
    }
  }

  private sessionOf(path: CheckedPath): { session: LspSession; adapter: LanguageAdapter } {
    const found = this.project.pool.sessionFor(path.abs);
    this.sessions.set(found.adapter.id, found.session);
    if (!this.listening.has(found.session)) {
      this.listening.add(found.session);
      found.session.onDiskChange((paths) => this.changed(paths));
    }
    return found;
  }

  /**
   * The index key of an adapter: known before its server starts (launch settings and the version
   * its probe reads), so a restart finds its entries while the server is still loading.
   */
  private keyOf(adapter: LanguageAdapter): Promise<string | null> {
    let key = this.keys.get(adapter.id);
    if (!key) {
      key = (async () => {
        const spec = adapter.spec(this.project.root);
        if ("missing" in spec) return null;
        const version = await Promise.race([
          adapter.probe(this.project.root).then(
            (p) => p.version,
            () => undefined,
          ),
          new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 5000).unref()),
        ]);
        const k = serverKey({
          adapter: adapter.id,
          version,
          settings: [
            spec.launch,
            spec.initializationOptions ?? null,
            spec.didChangeConfigurationSettings ?? null,
          ],
        });
        this.resolvedKeys.set(adapter.id, k);
        return k;
      })();
      this.keys.set(adapter.id, key);
    }
    return key;
  }

  private table(key: string): Promise<Map<string, TableEntry>> {
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

  private async forText(
    path: CheckedPath,
    adapter: LanguageAdapter,
    key: string | null,
    text: string,
    st: StatLike | null,
    signal?: AbortSignal,
  ): Promise<SymbolFile> {
    const hash = textHash(text);
    const tree = this.trees.get(path.abs, hash);
    if (tree) return { path, text, roots: tree, adapter };
    if (key !== null) {
      const entry = (await this.table(key)).get(path.rel);
      if (entry && entry.hash === hash) {
        if (st && !sameStat(entry, st)) this.record(key, path, adapter.id, hash, st, symbolsOf(entry), false);
        return { path, text, roots: this.treeOf(path.abs, entry), adapter };
      }
      const stored = await this.store.get(key, path.rel, hash);
      if (stored) {
        this.store.stats.reused++;
        this.record(key, path, adapter.id, hash, st, stored, false);
        return this.withTree(path, adapter, text, hash, stored);
      }
    }
    const asked = await this.ask(path, adapter, key, text, hash, st, signal);
    return this.withTree(path, adapter, asked.text, textHash(asked.text), asked.symbols);
  }

  /** The server's document symbols for the file (opened for it); shared by concurrent callers. */
  private ask(
    path: CheckedPath,
    adapter: LanguageAdapter,
    key: string | null,
    text: string,
    hash: string,
    st: StatLike | null,
    signal?: AbortSignal,
  ): Promise<{ text: string; symbols: DocumentSymbol[] }> {
    const id = `${key}/${path.rel}/${hash}`;
    const pending = this.pending.get(id);
    if (pending) return pending;
    const answer = (async () => {
      const { session } = this.sessionOf(path);
      await session.whenReady(signal);
      const doc = await session.sync(path.abs);
      this.opened++;
      const raw = await session.request<(DocumentSymbol | SymbolInformation)[] | null>(
        "textDocument/documentSymbol",
        { textDocument: { uri: doc.uri } },
        signal ? { signal } : {},
      );
      const list = raw ?? [];
      const hierarchical = isDocumentSymbols(list) ? list : hierarchyFromFlat(list as SymbolInformation[]);
      const symbols = adapter.normalizeSymbols
        ? adapter.normalizeSymbols(hierarchical, doc.text)
        : hierarchical;
      this.store.stats.requested++;
      if (key !== null) {
        // The size and mtime seen before the read vouch for the text only if the server read the same.
        this.record(key, path, adapter.id, textHash(doc.text), doc.text === text ? st : null, symbols, true);
      }
      return { text: doc.text, symbols };
    })();
    this.pending.set(id, answer);
    return answer.finally(() => this.pending.delete(id));
  }

  private withTree(
    path: CheckedPath,
    adapter: LanguageAdapter,
    text: string,
    hash: string,
    symbols: readonly DocumentSymbol[],
  ): SymbolFile {
    const roots = buildTree(symbols);
    this.trees.set(path.abs, hash, roots);
    return { path, text, roots, adapter };
  }

  private treeOf(abs: string, entry: TableEntry): SymbolNode[] {
    const hit = this.trees.get(abs, entry.hash);
    if (hit) return hit;
    const roots = buildTree(symbolsOf(entry));
    this.trees.set(abs, entry.hash, roots);
    return roots;
  }

  private record(
    key: string,
    path: CheckedPath,
    adapterId: string,
    hash: string,
    st: StatLike | null,
    symbols: readonly DocumentSymbol[],
    persist: boolean,
  ): void {
    const table = this.loaded.get(key);
    if (table)
      table.set(path.rel, entryOf(hash, st, symbols, st !== null && this.watched(adapterId, path.abs)));
    if (persist) void this.store.put(key, path.rel, hash, [...symbols]);
    this.scheduleSave(key);
  }

  /** A file left the disk: its row, its entry and its place in the list go. */
  private forget(rel: string): void {
    this.listValid = false;
    this.list = this.list?.filter((f) => f.rel !== rel) ?? null;
    for (const [key, table] of this.loaded) {
      if (!table.delete(rel)) continue;
      void this.store.remove(key, rel);
      this.scheduleSave(key);
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

  /** Whether the watcher of the adapter's session would report a change to `abs` from now on. */
  private watched(adapterId: string, abs: string): boolean {
    return this.sessions.get(adapterId)?.watches(dirname(abs)) === true;
  }

  /** Whether every server's watcher covers the whole tree (new files are then reported). */
  private watching(): boolean {
    const all = [...this.sessions.values()];
    return all.length > 0 && all.every((s) => s.watches(this.project.root));
  }

  /** Lets the watchers report what changed on disk before an answer relies on their silence. */
  private async drain(): Promise<void> {
    for (const s of this.sessions.values()) {
      if (s.watches(this.project.root)) await s.refreshOpenDocuments().catch(() => {});
    }
  }

  private changed(paths: readonly string[]): void {
    for (const abs of paths) {
      const rel = this.relOf(abs);
      let known = false;
      for (const table of this.loaded.values()) {
        const entry = table.get(rel);
        if (entry) {
          entry.fresh = false;
          known = true;
        }
      }
      if (known) {
        // A deleted file's row and entry go at once (a rename reports both names).
        void stat(abs).catch((e: NodeJS.ErrnoException) => {
          if (e.code === "ENOENT") this.forget(rel);
        });
        continue;
      }
      // A new file, a directory, an ignore file: the list is walked again, rows below are re-checked.
      this.listValid = false;
      const below = `${rel}/`;
      for (const table of this.loaded.values()) {
        for (const [r, entry] of table) if (r.startsWith(below)) entry.fresh = false;
      }
    }
  }

  private relOf(abs: string): string {
    const root = this.project.root;
    const rel = abs.startsWith(root + sep) ? abs.slice(root.length + 1) : abs;
    return sep === "/" ? rel : rel.split(sep).join("/");
  }
}

/** Stats many files, a bounded number at a time: undefined when unknown, null when gone. */
async function statAll(abs: readonly string[]): Promise<(StatLike | null | undefined)[]> {
  const out: (StatLike | null | undefined)[] = new Array(abs.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < abs.length; i = next++) {
      try {
        const s = await stat(abs[i]!);
        out[i] = { size: s.size, mtimeMs: s.mtimeMs };
      } catch (e) {
        out[i] = (e as NodeJS.ErrnoException).code === "ENOENT" ? null : undefined;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(64, abs.length) }, worker));
  return out;
}
