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
import { sep } from "node:path";
import type { DocumentSymbol, SymbolInformation } from "vscode-languageserver-protocol";
import type { Logger } from "../core/log.js";
import type { CodeFilesHost } from "../files/code-files.js";
import type { LanguageAdapter } from "../languages/adapter.js";
import type { LspSession } from "../lsp/session.js";
import type { CheckedPath } from "../security/sandbox.js";
import type { ServerPool } from "../servers/server-pool.js";
import { readProjectText } from "../text/read.js";
import { CodeFileList } from "./code-file-list.js";
import { IndexKeys } from "./index-keys.js";
import { textHash } from "./index-store.js";
import { parseNamePath } from "./name-path.js";
import { scanFiles } from "./scan.js";
import type { StatLike } from "./stat-all.js";
import type { IndexProgress, OpenSymbolFile, ScanResult, SymbolFile } from "./symbol-file.js";
import { sameStat, type TableEntry } from "./table.js";
import { SymbolTables } from "./tables.js";
import { buildTree, hierarchyFromFlat, isDocumentSymbols, type SymbolNode } from "./tree.js";
import { TreeCache } from "./trees.js";
import { WatchState } from "./watch-state.js";

export type { IndexProgress, OpenSymbolFile, ScanHit, ScanResult, SymbolFile } from "./symbol-file.js";

/** What the symbol service needs of its project. */
export interface SymbolHost extends CodeFilesHost {
  readonly pool: ServerPool;
  /** Nothing is written under `.scalpel/` (the index) when set. */
  readonly readOnly: boolean;
  readonly log: Logger;
}

export class SymbolService {
  /** Files opened in a server by this service (didOpen or a re-sync): the e2e tests count them. */
  opened = 0;
  /** Set by the index build while it runs. */
  progress: IndexProgress | null = null;
  private readonly tables: SymbolTables;
  private readonly keys: IndexKeys;
  private readonly watch: WatchState;
  private readonly trees = new TreeCache();
  private readonly pending = new Map<string, Promise<{ text: string; symbols: DocumentSymbol[] }>>();
  private readonly files: CodeFileList;
  private readonly log: Logger;

  constructor(private readonly project: SymbolHost) {
    this.log = project.log.child("index");
    this.tables = new SymbolTables(project.sandbox, !project.readOnly, this.log);
    this.keys = new IndexKeys(project.root);
    this.watch = new WatchState(project.root, (paths) => this.changed(paths));
    this.files = new CodeFileList(project, this.watch, (list) => void this.pruneGone(list));
  }

  /** The persistent store under the tables (the index build reads its counters). */
  get store() {
    return this.tables.store;
  }

  /** The symbols of a file as it is on disk: memory, then the index, then its server (`keep`: its tree cached). */
  async file(path: CheckedPath, signal?: AbortSignal, keep = true): Promise<SymbolFile> {
    const adapter = this.adapterOf(path);
    const key = await this.keys.of(adapter);
    const st = await stat(path.abs).catch(() => null);
    const text = (await readProjectText(path.abs, path.rel)).text;
    return this.forText(path, adapter, key, text, st, signal, keep);
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
    const key = await this.keys.of(adapter);
    const again = await this.forText(file.path, adapter, key, doc.text, null, signal);
    return { ...again, doc, session };
  }

  /**
   * Symbols known for exactly this text of a file (memory or the table), without any server or disk.
   * Not kept: callers (reference sites, a delta's files) go through many files once; kept, their
   * trees outlived V8's young generation to die in the old one and pushed out the worked-on files'.
   */
  cached(abs: string, text: string): SymbolNode[] | null {
    const hash = textHash(text);
    const tree = this.trees.get(abs, hash);
    if (tree) return tree;
    const adapter = this.project.pool.adapterForPath(abs);
    const key = adapter ? this.keys.known(adapter.id) : undefined;
    const table = key ? this.tables.loadedTable(key) : undefined;
    const entry = table?.get(this.relOf(abs));
    if (!entry || entry.hash !== hash) {
      this.log.debug(
        `no symbols known for ${this.relOf(abs)} (${entry ? "other text" : table ? "not in the table" : "no table"})`,
      );
      return null;
    }
    return this.treeOf(abs, entry, false);
  }

  /** The code files under `rel` (a folder, "" for all): from the last walk while the watcher vouches for it. */
  async codeFiles(rel: string, signal?: AbortSignal): Promise<CheckedPath[]> {
    await this.watch.drain();
    return this.files.under(rel, signal);
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
    this.track(files);
    await this.watch.drain();
    await this.loadTablesOf(files);
    const may = this.tables.matcher(parseNamePath(namePath), substring, files.length);
    return scanFiles(
      {
        row: async (f) => {
          const adapter = this.project.pool.adapterForPath(f.rel);
          const key = adapter ? await this.keys.of(adapter) : null;
          const entry = key ? (await this.tables.table(key)).get(f.rel) : undefined;
          return { entry, watched: adapter !== null && this.watch.watched(adapter.id, f.abs) };
        },
        may,
        tree: (f, entry) => this.treeOf(f.abs, entry),
        read: (f) => this.file(f, signal),
        forget: (rel) => this.forget(rel),
        log: this.log,
      },
      files,
      namePath,
    );
  }

  /**
   * For the index build: whether the index holds `file`'s current text (recording it in the table
   * when only its entry did), "gone" when it left the disk (then pruned).
   */
  async check(file: CheckedPath): Promise<"indexed" | "missing" | "gone"> {
    const adapter = this.project.pool.adapterForPath(file.rel);
    const key = adapter ? await this.keys.of(adapter) : null;
    if (!adapter || key === null) return "missing";
    const table = await this.tables.table(key);
    const st = await stat(file.abs).catch(() => null);
    if (st === null) {
      this.forget(file.rel);
      return "gone";
    }
    const entry = table.get(file.rel);
    if (entry && ((entry.fresh && this.watch.watched(adapter.id, file.abs)) || sameStat(entry, st))) {
      this.store.stats.reused++;
      return "indexed";
    }
    const text = (await readProjectText(file.abs, file.rel)).text;
    const hash = textHash(text);
    if (entry && entry.hash === hash) {
      this.store.stats.reused++;
      this.restat(key, file, adapter.id, hash, st);
      return "indexed";
    }
    const stored = await this.store.get(key, file.rel, hash);
    if (!stored) return "missing";
    this.store.stats.reused++;
    this.record(key, file, adapter.id, hash, st, stored, false);
    return "indexed";
  }

  /** Drops the rows of files not in `present` (the build's full list), and their entries. */
  prune(present: readonly CheckedPath[]): Promise<void> {
    return this.tables.prune(new Set(present.map((f) => f.rel)));
  }

  /** Writes the table snapshots now (the build's end). */
  save(): Promise<void> {
    return this.tables.save();
  }

  // ---- internals ----

  /** Drops rows of files that are not in a fresh walk and no longer on disk (a delete seen by the walk). */
  private async pruneGone(list: readonly CheckedPath[]): Promise<void> {
    const gone = await this.tables.gone(this.project.root, new Set(list.map((f) => f.rel)));
    for (const rel of gone) this.forget(rel);
  }

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
    this.watch.attach(found.adapter.id, found.session);
    return found;
  }

  private async forText(
    path: CheckedPath,
    adapter: LanguageAdapter,
    key: string | null,
    text: string,
    st: StatLike | null,
    signal?: AbortSignal,
    keep = true,
  ): Promise<SymbolFile> {
    const hash = textHash(text);
    const tree = this.trees.get(path.abs, hash);
    if (tree) return { path, text, roots: tree, adapter };
    if (key !== null) {
      const entry = (await this.tables.table(key)).get(path.rel);
      const roots = entry && entry.hash === hash ? this.treeOf(path.abs, entry, keep) : null;
      if (roots) {
        if (st && !sameStat(entry!, st)) this.restat(key, path, adapter.id, hash, st);
        return { path, text, roots, adapter };
      }
      const stored = await this.store.get(key, path.rel, hash);
      if (stored) {
        this.store.stats.reused++;
        this.record(key, path, adapter.id, hash, st, stored, false);
        return this.withTree(path, adapter, text, hash, stored, keep);
      }
    }
    const asked = await this.ask(path, adapter, key, text, hash, st, signal);
    return this.withTree(path, adapter, asked.text, textHash(asked.text), asked.symbols, keep);
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
    keep: boolean,
  ): SymbolFile {
    const roots = buildTree(symbols);
    if (keep) this.trees.set(path.abs, hash, roots);
    return { path, text, roots, adapter };
  }

  /** The row's tree, or null when its bytes are unreadable (the row is then dropped). */
  private treeOf(abs: string, entry: TableEntry, keep = true): SymbolNode[] | null {
    const hit = this.trees.get(abs, entry.hash);
    if (hit) return hit;
    const symbols = this.tables.symbolsOf(entry);
    if (symbols === null) return null;
    const roots = buildTree(symbols);
    if (keep) this.trees.set(abs, entry.hash, roots);
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
    const fresh = st !== null && this.watch.watched(adapterId, path.abs);
    this.tables.record(key, path.rel, hash, st, symbols, fresh, persist);
  }

  /** The row of this very text only takes the new size, mtime and freshness. */
  private restat(key: string, path: CheckedPath, adapterId: string, hash: string, st: StatLike | null): void {
    const fresh = st !== null && this.watch.watched(adapterId, path.abs);
    this.tables.record(key, path.rel, hash, st, null, fresh, false);
  }

  /** Loads the tables of the files' servers, so a scan's lookup sees every row. */
  private async loadTablesOf(files: readonly CheckedPath[]): Promise<void> {
    const seen = new Set<string>();
    for (const f of files) {
      const adapter = this.project.pool.adapterForPath(f.rel);
      if (!adapter || seen.has(adapter.id)) continue;
      seen.add(adapter.id);
      const key = await this.keys.of(adapter);
      if (key !== null) await this.tables.table(key);
    }
  }

  /** A file left the disk: its row, its entry and its place in the list go. */
  private forget(rel: string): void {
    this.files.remove(rel);
    this.tables.forget(rel);
  }

  private changed(paths: readonly string[]): void {
    for (const abs of paths) {
      const rel = this.relOf(abs);
      let known = false;
      for (const entry of this.tables.entriesOf(rel)) {
        entry.fresh = false;
        known = true;
      }
      if (known) {
        // A deleted file's row and entry go at once (a rename reports both names).
        void stat(abs).catch((e: NodeJS.ErrnoException) => {
          if (e.code === "ENOENT") this.forget(rel);
        });
        continue;
      }
      // A new file, a directory, an ignore file: the list is walked again, rows below are re-checked.
      this.files.invalidate();
      for (const entry of this.tables.entriesBelow(rel)) entry.fresh = false;
    }
  }

  private relOf(abs: string): string {
    const root = this.project.root;
    const rel = abs.startsWith(root + sep) ? abs.slice(root.length + 1) : abs;
    return sep === "/" ? rel : rel.split(sep).join("/");
  }
}
