/**
 * The only sender of didOpen/didChange/didClose: a server sees the current disk text of a file
 * before any request about it. Operations are serialised so notifications leave in a defined order.
 * At most `maxOpen` documents stay open (least recently used are closed) because tsserver
 * re-checks every open file after each change.
 */
import { stat } from "node:fs/promises";
import { basename, extname } from "node:path";
import { FileChangeType, type FileEvent } from "vscode-languageserver-protocol";
import { readProjectText } from "../text/read.js";
import type { OpenDocument } from "./types.js";
import { pathToUri } from "./uri.js";

export interface TrackedDocument extends OpenDocument {
  path: string;
  languageId: string;
  /** Event-clock value of the last didOpen/didChange. */
  changedSeq: number;
  /** Date.now() of the last didOpen/didChange. */
  changedAt: number;
}

export interface DocumentsHost {
  notify(method: string, params: unknown): Promise<void>;
  languageIdFor(ext: string): string;
  tick(): number;
  onOpened(doc: TrackedDocument): void;
  /**
   * Follow every change synced from disk with `didSave` (the text is the saved file): servers that
   * check on save (rust-analyzer's `cargo check`) see changes made by any writer.
   */
  saveOnSync?: boolean;
  onSaved?(uri: string): void;
}

export class Documents {
  /** Map order is recency order: re-inserted on every use. */
  private readonly open = new Map<string, TrackedDocument>();
  /** Paths we have seen on disk, to tell Created from Changed in watched-file events. */
  private readonly seen = new Set<string>();
  private queue: Promise<unknown> = Promise.resolve();

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

  sync(absPath: string): Promise<TrackedDocument> {
    return this.serial(() => this.syncNow(absPath));
  }

  /**
   * Re-reads every open document from disk: an open document's text overrides the disk for the
   * server, so a file changed by another process must be re-sent before any cross-file request.
   * Returns whether any document changed.
   */
  refreshAll(): Promise<boolean> {
    return this.serial(async () => {
      let changed = false;
      for (const doc of [...this.open.values()]) {
        const text = await readProjectText(doc.path).then(
          (f) => f.text,
          () => null,
        );
        if (text === null) await this.close(doc);
        else if (text !== doc.text) await this.change(doc, text, true);
        else continue;
        changed = true;
      }
      return changed;
    });
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
        this.seen.add(path);
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

  private async syncNow(absPath: string): Promise<TrackedDocument> {
    const uri = pathToUri(absPath);
    let text: string;
    try {
      // The one reader: a server sees the same decoded text (BOM, UTF-16, line endings) that the
      // tools compute positions on and the writer compares against.
      text = (await readProjectText(absPath, basename(absPath))).text;
    } catch (e) {
      const doc = this.open.get(uri);
      if (doc) await this.close(doc);
      throw e;
    }
    this.seen.add(absPath);
    const existing = this.open.get(uri);
    if (existing) {
      this.open.delete(uri);
      this.open.set(uri, existing);
      if (existing.text !== text) await this.change(existing, text, true);
      return existing;
    }
    const doc: TrackedDocument = {
      uri,
      path: absPath,
      version: 1,
      text,
      languageId: this.host.languageIdFor(extname(absPath).toLowerCase()),
      changedSeq: this.host.tick(),
      changedAt: Date.now(),
    };
    this.open.set(uri, doc);
    await this.host.notify("textDocument/didOpen", {
      textDocument: { uri, languageId: doc.languageId, version: doc.version, text },
    });
    this.host.onOpened(doc);
    await this.evict();
    return doc;
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
    while (this.open.size > this.maxOpen) {
      const oldest = this.open.values().next().value;
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

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
