/**
 * Keeps the server's view of the project in step with the disk: the open documents (documents.ts),
 * the project watcher that runs once the server registers a file watcher, the changes scalpel
 * wrote itself, and the listeners told of every path that may have changed.
 */
import { dirname } from "node:path";
import type { Registration } from "vscode-languageserver-protocol";
import type { Logger } from "../core/log.js";
import { Documents, type TrackedDocument } from "./documents.js";
import { FileWatcher } from "./file-watcher.js";
import type { ServerSpec } from "./types.js";
import { WatchRegistrations } from "./watch-registrations.js";

export interface DiskSyncHost {
  rootDir: string;
  log: Logger;
  spec: ServerSpec;
  /** Directory names the project watcher watches only at their top level. */
  watchIgnoredDirs: readonly string[];
  notify(method: string, params: unknown): Promise<void>;
  /** The session's event clock (shared with published diagnostics). */
  tick(): number;
  /** Resolves once documents may be sent (`initialized` went out); rejects when they never may. */
  whenInitialized(): Promise<void>;
  /** The session is stopping: no watcher is started any more. */
  stopping(): boolean;
  onOpened(): void;
  onSaved(): void;
}

export class DiskSync {
  readonly documents: Documents;
  /** Event-clock value of the last write or announced change; dependants of it need a re-check. */
  private _lastWriteSeq = 0;
  /** How many flushes re-sent or announced something, and the files of the last one. */
  private _movedCount = 0;
  private _movedPaths: string[] = [];
  /** File watchers the server registered; the project watcher runs once there is one. */
  private readonly registrations = new WatchRegistrations();
  private watcher: FileWatcher | undefined;
  private readonly diskListeners = new Set<(absPaths: readonly string[]) => void>();

  constructor(private readonly host: DiskSyncHost) {
    this.documents = new Documents({
      notify: (method, params) => host.notify(method, params),
      languageIdFor: (ext) => host.spec.languageIdFor(ext),
      tick: () => host.tick(),
      onOpened: () => host.onOpened(),
      saveOnSync: host.spec.saveOnSync === true,
      onSaved: () => host.onSaved(),
      vouches: (absPath, takenAt) => this.watcher?.watchesSince(dirname(absPath), takenAt) === true,
    });
  }

  get lastWriteSeq(): number {
    return this._lastWriteSeq;
  }
  get movedCount(): number {
    return this._movedCount;
  }
  get movedPaths(): readonly string[] {
    return this._movedPaths;
  }

  /** Opens or updates the document of `absPath` after bringing everything else up to the disk. */
  async sync(absPath: string): Promise<TrackedDocument> {
    await this.host.whenInitialized();
    await this.syncWithDisk(true);
    return this.documents.sync(absPath);
  }

  /**
   * The one place the server's view is brought up to the disk (see Documents.syncWithDisk); returns
   * the files re-sent, closed or announced. What the watcher saw is drained first (the drain lets
   * pending inotify events in, so a write that finished before this call is among them); open
   * documents are stat-checked whether or not an event came. Anything re-sent or announced can
   * change other files' errors, as a write by scalpel would: `lastWriteSeq` makes the next
   * diagnostics wait for a fresh check.
   */
  async syncWithDisk(openDocuments: boolean): Promise<string[]> {
    const changes = this.watcher ? await this.watcher.drain() : [];
    this.tellDisk(changes.map((c) => c.path));
    const filter = this.registrations.any ? this.registrations : undefined;
    const { paths } = await this.documents.syncWithDisk(changes, filter, openDocuments);
    if (paths.length > 0) {
      this._lastWriteSeq = this.host.tick();
      this._movedCount++;
      this._movedPaths = paths;
    }
    return paths;
  }

  /**
   * The server was shown text that is not on disk and then the disk again (an overlay lifted):
   * what it published meanwhile for other files described the overlay, so their next diagnostics
   * wait for a fresh check, as after a write.
   */
  overlayLifted(): void {
    this._lastWriteSeq = this.host.tick();
  }

  async didWrite(absPaths: string[]): Promise<void> {
    this.tellDisk(absPaths);
    await this.host.whenInitialized();
    this._lastWriteSeq = this.host.tick();
    await this.documents.didWrite(absPaths);
  }

  /** See LspSession.onDiskChange. */
  onDiskChange(listener: (absPaths: readonly string[]) => void): () => void {
    this.diskListeners.add(listener);
    return () => this.diskListeners.delete(listener);
  }

  /** Whether a change by another process to an entry directly in `absDir` reaches `onDiskChange`. */
  watches(absDir: string): boolean {
    return this.watcher?.watches(absDir) === true;
  }

  /** `client/registerCapability`: file watchers the server wants; the first starts the project watcher. */
  register(registrations: Registration[]): void {
    if (!this.registrations.register(registrations) || this.watcher || this.host.stopping()) return;
    const log = this.host.log;
    const watcher = new FileWatcher(this.host.rootDir, {
      ignoredDirs: this.host.watchIgnoredDirs,
      onError: (message) => log.warn(`file watcher: ${message}; changes there reach the server late`),
    });
    this.watcher = watcher;
    void watcher.ready.then(() => log.debug(`watching ${watcher.watchedDirCount} directories`));
  }

  unregister(ids: string[]): void {
    this.registrations.unregister(ids);
  }

  close(): void {
    this.watcher?.close();
  }

  private tellDisk(absPaths: readonly string[]): void {
    if (absPaths.length > 0) for (const listener of this.diskListeners) listener(absPaths);
  }
}
