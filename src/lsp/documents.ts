/**
 * The only sender of didOpen/didChange/didClose: a server sees the current disk text of a file
 * before any request about it. Operations are serialised so notifications leave in a defined order.
 * At most `maxOpen` documents stay open (least recently used are closed) because a server may
 * re-check every open file after each change, which stalls later requests.
 */
import { stat } from "node:fs/promises";
import { basename, extname, sep } from "node:path";
import { FileChangeType, type FileEvent } from "vscode-languageserver-protocol";
import { readProjectText } from "../text/read.js";
import { type DiskStamp, isFile, stampOf, unsureWithinMs } from "./disk-stamp.js";
import type { WatchedChange } from "./file-watcher.js";
import type { OpenDocument } from "./types.js";
import { pathToUri } from "./uri.js";

export interface TrackedDocument extends OpenDocument {
  path: string;
  languageId: string;
  /** Event-clock value of the last didOpen/didChange. */
  changedSeq: number;
  /** Date.now() of the last didOpen/didChange. */
  changedAt: number;
  /** The file on disk when `text` was read from it. */
  disk?: DiskStamp | undefined;
  /** A drained watcher change named the file (or a folder above it) since it was last checked. */
  changedOnDisk?: boolean;
}

/** A change check's answer: the files it re-sent, closed or announced to the server. */
export interface DiskSyncResult {
  paths: string[];
}

/** Which announcements the server asked for (its watcher registrations). */
export interface WatchFilter {
  wants(path: string, type: FileChangeType): boolean;
}

export interface DocumentsHost {
  notify(method: string, params: unknown): Promise<void>;
  languageIdFor(ext: string): string;
  tick(): number;
  onOpened(doc: TrackedDocument): void;
  /**
   * Follow every change synced from disk with `didSave` (the text is the saved file): servers that
   * check on save (ServerSpec.saveOnSync) see changes made by any writer.
   */
  saveOnSync?: boolean;
  onSaved?(uri: string): void;
  /**
   * Whether every change to the file after `takenAt` (Date.now()) is reported by the project
   * watcher (its folder watched since before then). Such a document, named by no drained change
   * since its stamp, is current without a stat or a read.
   */
  vouches?(absPath: string, takenAt: number): boolean;
}

export class Documents {
  /** Map order is recency order: re-inserted on every use. */
  private readonly open = new Map<string, TrackedDocument>();
  /**
   * Files the server was told about (opened, or announced), with the disk stamp it was told:
   * tells Created from Changed, and skips a watcher event for a change already announced (a write
   * by scalpel is announced by `didWrite` before its watcher event arrives).
   */
  private readonly seen = new Map<string, string>();
  private queue: Promise<unknown> = Promise.resolve();
  /** Paths whose open text is an overlay (see `overlay`): not re-sent from the disk meanwhile. */
  private readonly overlaid = new Set<string>();

  constructor(
    private readonly host: DocumentsHost,
    private readonly maxOpen = 40,
  ) {}

  get(uri: string): TrackedDocument | undefined {
    return this.open.get(uri);
  }

  get openCount(): number {
    return this.open.size;
  }

  /** Opens the file, or brings its open document up to the disk (the watcher's word, else a stat). */
  sync(absPath: string): Promise<TrackedDocument> {
    return this.serial(() => this.syncNow(absPath, true));
  }

  /**
   * Brings the server's view up to the disk: every open document is stat-checked (size + mtime +
   * inode; read and compared when the stamp is unsure) and re-sent or closed; `changes` (from the
   * project watcher) that are not open documents are announced with didChangeWatchedFiles where
   * `filter` says the server asked for them. With `openDocuments: false` only the announcements
   * are made (safe between a tool's sync and its request: no open text changes under it).
   */
  syncWithDisk(
    changes: WatchedChange[],
    filter: WatchFilter | undefined,
    openDocuments = true,
  ): Promise<DiskSyncResult> {
    return this.serial(async () => {
      const result: DiskSyncResult = { paths: [] };
      for (const { path } of changes) this.markChanged(path);
      if (openDocuments) {
        for (const doc of [...this.open.values()]) {
          // Measured on date-fns (40 documents open): three checks of every open
          // document per references call, each a stat awaited in turn.
          if (this.current(doc)) continue;
          if (await this.recheck(doc)) result.paths.push(doc.path);
        }
      }
      if (!filter) return result;
      const events: FileEvent[] = [];
      for (const { path, change } of changes) {
        const uri = pathToUri(path);
        if (this.open.has(uri)) continue;
        const s = await stat(path).catch(() => null);
        if (s === null) {
          // Gone: the path itself, and (for a directory) every file below it the server was told.
          const prefix = path + sep;
          for (const known of [...this.seen.keys()]) {
            if (known !== path && !known.startsWith(prefix)) continue;
            this.seen.delete(known);
            if (!filter.wants(known, FileChangeType.Deleted)) continue;
            events.push({ uri: pathToUri(known), type: FileChangeType.Deleted });
            result.paths.push(known);
          }
          if (
            change === "rename" &&
            !result.paths.includes(path) &&
            filter.wants(path, FileChangeType.Deleted)
          ) {
            events.push({ uri, type: FileChangeType.Deleted });
            result.paths.push(path);
          }
          continue;
        }
        if (s.isDirectory()) {
          // A directory counts only when it appears (a package installed, a folder created): what
          // servers' module resolution watches for. Its contents are reported file by file.
          if (change !== "rename" || this.seen.has(path) || !filter.wants(path, FileChangeType.Created))
            continue;
          this.seen.set(path, "dir");
          events.push({ uri, type: FileChangeType.Created });
          result.paths.push(path);
          continue;
        }
        if (!s.isFile()) continue;
        const key = stampOf(s).key;
        const before = this.seen.get(path);
        if (before === key) continue;
        const type =
          before === undefined && change === "rename" ? FileChangeType.Created : FileChangeType.Changed;
        if (!filter.wants(path, type)) continue;
        this.seen.set(path, key);
        events.push({ uri, type });
        result.paths.push(path);
      }
      if (events.length === 0) return result;
      await this.host.notify("workspace/didChangeWatchedFiles", { changes: events });
      if (this.host.saveOnSync) {
        // A checker that runs on save must see changes to files nobody opened.
        for (const e of events) if (e.type !== FileChangeType.Deleted) await this.save(e.uri);
      }
      return result;
    });
  }

  /**
   * Shows the server `text` as the document of `absPath` without writing it (an unsaved buffer),
   * to ask about the text an edit would leave; the function returned lifts it (the disk's text is
   * sent again). Meanwhile the document is not re-sent from the disk: every question about it, any
   * caller's, sees the overlay, so callers hold one only for the request that needs it.
   */
  overlay(absPath: string, text: string): Promise<() => Promise<void>> {
    return this.serial(async () => {
      // A path with no file (one a change deleted) is opened with the text alone: the servers
      // measured take an open document for a file that exists (they resolve imports of it), and
      // closing it lifts it.
      const scratch = !(await isFile(absPath));
      // A server that resolved imports of the missing file before keeps the failure until it
      // hears the file appeared, before it is opened (one that relies on the client's watcher).
      if (scratch) await this.announce(pathToUri(absPath), FileChangeType.Created);
      const doc = scratch ? await this.openText(absPath, text) : await this.syncNow(absPath);
      this.overlaid.add(absPath);
      if (doc.text !== text) await this.change(doc, text);
      return () =>
        this.serial(async () => {
          this.overlaid.delete(absPath);
          if (!this.open.has(doc.uri)) return;
          if (!scratch || (await isFile(absPath))) {
            await this.syncNow(absPath);
            return;
          }
          await this.close(doc);
          await this.announce(doc.uri, FileChangeType.Deleted);
        });
    });
  }

  private async announce(uri: string, type: FileChangeType): Promise<void> {
    await this.host.notify("workspace/didChangeWatchedFiles", { changes: [{ uri, type }] });
  }

  /** Sends the same text again under a new version, which makes push servers re-check the file. */
  touch(uri: string): Promise<TrackedDocument | undefined> {
    return this.serial(async () => {
      const doc = this.open.get(uri);
      if (!doc) return undefined;
      await this.change(doc, doc.text);
      return doc;
    });
  }

  didWrite(absPaths: string[]): Promise<void> {
    return this.serial(async () => {
      const events: FileEvent[] = [];
      for (const path of absPaths) {
        const uri = pathToUri(path);
        const exists = await isFile(path);
        const doc = this.open.get(uri);
        if (!exists) {
          if (doc) await this.close(doc);
          this.seen.delete(path);
          events.push({ uri, type: FileChangeType.Deleted });
          continue;
        }
        const known = doc !== undefined || this.seen.has(path);
        await this.stampSeen(path);
        events.push({ uri, type: known ? FileChangeType.Changed : FileChangeType.Created });
        if (doc) {
          const before = doc.version;
          await this.syncNow(path);
          // With saveOnSync a changed text was already followed by didSave.
          if (!this.host.saveOnSync || doc.version === before) await this.save(uri);
        }
      }
      if (events.length > 0) await this.host.notify("workspace/didChangeWatchedFiles", { changes: events });
      if (this.host.saveOnSync) {
        // Files written but not open: a save-triggered checker must still see them.
        for (const e of events)
          if (e.type !== FileChangeType.Deleted && !this.open.has(e.uri)) await this.save(e.uri);
      }
    });
  }

  private async syncNow(absPath: string, trustWatcher = false): Promise<TrackedDocument> {
    const uri = pathToUri(absPath);
    const held = this.overlaid.has(absPath) ? this.open.get(uri) : undefined;
    if (held) return held;
    const open = trustWatcher ? this.open.get(uri) : undefined;
    if (open && this.current(open)) {
      this.open.delete(uri);
      this.open.set(uri, open);
      return open;
    }
    let text: string;
    let disk: DiskStamp | undefined;
    try {
      // Stamped before reading: a write between the two leaves an older stamp, which only means
      // one more read at the next check, never a missed change.
      disk = await stat(absPath).then(
        (s) => stampOf(s),
        () => undefined,
      );
      // The one reader: a server sees the same decoded text (BOM, UTF-16, line endings) that the
      // tools compute positions on and the writer compares against.
      text = (await readProjectText(absPath, basename(absPath))).text;
    } catch (e) {
      const doc = this.open.get(uri);
      if (doc) await this.close(doc);
      throw e;
    }
    if (disk) this.seen.set(absPath, disk.key);
    const existing = this.open.get(uri);
    if (existing) {
      this.open.delete(uri);
      this.open.set(uri, existing);
      existing.disk = disk;
      existing.changedOnDisk = false;
      if (existing.text !== text) await this.change(existing, text, true);
      return existing;
    }
    return this.openText(absPath, text, disk);
  }

  /** Sends didOpen for `text` as the document of `absPath` (`disk`: the stamp it was read with). */
  private async openText(absPath: string, text: string, disk?: DiskStamp): Promise<TrackedDocument> {
    const uri = pathToUri(absPath);
    const doc: TrackedDocument = {
      uri,
      path: absPath,
      version: 1,
      text,
      languageId: this.host.languageIdFor(extname(absPath).toLowerCase()),
      changedSeq: this.host.tick(),
      changedAt: Date.now(),
      disk,
    };
    this.open.set(uri, doc);
    await this.host.notify("textDocument/didOpen", {
      textDocument: { uri, languageId: doc.languageId, version: doc.version, text },
    });
    this.host.onOpened(doc);
    await this.evict();
    return doc;
  }

  /** Current by the watcher's word: stamped after its folder's watch began, named by no change since. */
  private current(doc: TrackedDocument): boolean {
    if (doc.changedOnDisk || doc.disk === undefined || this.overlaid.has(doc.path)) return false;
    return this.host.vouches?.(doc.path, doc.disk.takenAt) === true;
  }

  /** Open documents at `path` or below it (a folder renamed or removed) need a check. */
  private markChanged(path: string): void {
    const below = path + sep;
    for (const doc of this.open.values())
      if (doc.path === path || doc.path.startsWith(below)) doc.changedOnDisk = true;
  }

  /** Re-checks one open document against the disk; true when it was re-sent or closed. */
  private async recheck(doc: TrackedDocument): Promise<boolean> {
    if (this.overlaid.has(doc.path)) return false;
    doc.changedOnDisk = false;
    const s = await stat(doc.path).catch(() => null);
    if (s === null || !s.isFile()) {
      await this.close(doc);
      this.seen.delete(doc.path);
      return true;
    }
    const now = stampOf(s);
    const was = doc.disk;
    if (was && was.key === now.key && was.takenAt - was.mtimeMs >= unsureWithinMs) return false;
    const text = await readProjectText(doc.path, basename(doc.path)).then(
      (f) => f.text,
      () => null,
    );
    if (text === null) {
      await this.close(doc);
      this.seen.delete(doc.path);
      return true;
    }
    doc.disk = now;
    this.seen.set(doc.path, now.key);
    if (text === doc.text) return false;
    await this.change(doc, text, true);
    return true;
  }

  private async stampSeen(path: string): Promise<void> {
    const s = await stat(path).catch(() => null);
    if (s) this.seen.set(path, stampOf(s).key);
  }

  private async change(doc: TrackedDocument, text: string, fromDisk = false): Promise<void> {
    doc.version += 1;
    doc.text = text;
    doc.changedSeq = this.host.tick();
    doc.changedAt = Date.now();
    await this.host.notify("textDocument/didChange", {
      textDocument: { uri: doc.uri, version: doc.version },
      contentChanges: [{ text }],
    });
    if (fromDisk && this.host.saveOnSync) await this.save(doc.uri);
  }

  private async save(uri: string): Promise<void> {
    await this.host.notify("textDocument/didSave", { textDocument: { uri } });
    this.host.onSaved?.(uri);
  }

  private async close(doc: TrackedDocument): Promise<void> {
    this.open.delete(doc.uri);
    await this.host.notify("textDocument/didClose", { textDocument: { uri: doc.uri } });
  }

  private async evict(): Promise<void> {
    // Never an overlay: closed, the server would read the disk again and every later answer
    // (a check of the text an edit would leave) would describe the old text instead.
    while (this.open.size > this.maxOpen) {
      const oldest = [...this.open.values()].find((d) => !this.overlaid.has(d.path));
      if (!oldest) return;
      await this.close(oldest);
    }
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }
}
