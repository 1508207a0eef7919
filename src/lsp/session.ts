/**
 * One running language server for one root, as its callers see it. Knows nothing about tools.
 * The parts, each in its own file: the process's life (lifecycle.ts), the gate every request
 * passes (request-gate.ts), the server's view of the disk (disk-sync.ts), diagnostics by the
 * adapter's strategy (file-diagnostics.ts), and the answers to the server's own messages
 * (server-messages.ts). What is specific to one server comes from its ServerSpec only.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Diagnostic, ServerCapabilities, WorkspaceEdit } from "vscode-languageserver-protocol";
import type { Logger } from "../core/log.js";
import { DiagnosticsStore } from "./diagnostics.js";
import { DiskSync } from "./disk-sync.js";
import { type DiagnosticsOptions, FileDiagnostics } from "./file-diagnostics.js";
import { ServerLifecycle, type SessionEvents } from "./lifecycle.js";
import { Readiness } from "./readiness.js";
import { RequestGate } from "./request-gate.js";
import { ServerEdits } from "./server-edits.js";
import { handleServerMessages } from "./server-messages.js";
import type { DiagnosticsResult, OpenDocument, RequestOptions, ServerSpec, SessionStatus } from "./types.js";
import { pathToUri } from "./uri.js";

export type { SessionEvents } from "./lifecycle.js";

export interface SessionOptions extends SessionEvents {
  /**
   * Directory names the project watcher watches only at their top level (the adapters' build and
   * dependency directories); version-control directories are never watched.
   */
  watchIgnoredDirs?: readonly string[];
  /** Wait this long before spawning (a restart's backoff); the session is `starting` meanwhile. */
  startDelayMs?: number;
}

export class LspSession {
  private readonly life: ServerLifecycle;
  private readonly readiness: Readiness;
  private readonly store = new DiagnosticsStore();
  private readonly disk: DiskSync;
  private readonly gate: RequestGate;
  private readonly fileDiagnostics: FileDiagnostics;
  private readonly serverEdits = new ServerEdits();
  private warmedUp = false;
  private readonly log: Logger;
  /**
   * Marks the async work of the call that holds overlays (withOverlays): its own questions see
   * them; every other caller's request waits until they are lifted, so that no answer describes
   * text that is not on disk (a concurrent call's check, references or positions).
   */
  private readonly overlayHolder = new AsyncLocalStorage<true>();
  private overlaysHeld: Promise<void> | undefined;

  /**
   * True inside the call that holds overlays (withOverlays): the server answers about text that is
   * not on disk, and no file watcher event tells a cache so. What is kept from disk-state answers
   * must be neither used nor kept here.
   */
  get seesOverlays(): boolean {
    return this.overlayHolder.getStore() === true;
  }

  constructor(
    readonly spec: ServerSpec,
    rootDir: string,
    logger: Logger,
    events: SessionOptions = {},
  ) {
    const log = logger.child(spec.id);
    this.log = log;
    const rootUri = pathToUri(rootDir);
    this.readiness = new Readiness(spec.readiness, log, (title, message, percentage) =>
      events.onProgress?.(title, message, percentage),
    );
    this.life = new ServerLifecycle(spec, rootDir, rootUri, log, `${spec.id} language server`, events, {
      connected: (conn) =>
        handleServerMessages(conn, {
          spec,
          rootDir,
          rootUri,
          log,
          readiness: this.readiness,
          store: this.store,
          disk: this.disk,
          pushedCheck: this.fileDiagnostics.pushedCheck,
          edits: this.serverEdits,
        }),
      loaded: () => this.readiness.initialLoad(),
      // A checker that runs once the workspace is loaded: diagnostics asked for right away wait
      // for it like for one after a save.
      ready: () => {
        if (spec.pushedAlongsidePull?.startsAfterLoad) this.fileDiagnostics.pushedCheck?.expectRun();
      },
      closed: () => this.disk.close(),
    });
    this.disk = new DiskSync({
      rootDir,
      log,
      spec,
      watchIgnoredDirs: events.watchIgnoredDirs ?? [],
      notify: (method, params) => this.life.conn?.notify(method, params) ?? Promise.resolve(),
      tick: () => this.store.tick(),
      whenInitialized: () => this.life.whenInitialized(),
      stopping: () => this.life.stopping,
      onOpened: () => {
        this.readiness.documentOpened();
        this.warmUpOnce();
      },
      onSaved: () => this.fileDiagnostics.pushedCheck?.expectRun(),
    });
    this.gate = new RequestGate(
      this.life,
      this.readiness,
      () => this.disk.syncWithDisk(false),
      spec.requestTimeoutMs,
    );
    this.fileDiagnostics = new FileDiagnostics(
      spec,
      rootDir,
      log,
      this.life,
      this.gate,
      this.readiness,
      this.disk,
      this.store,
    );
  }

  /** ServerSpec.warmUp, once, after the didOpen that set the server loading has gone out. */
  private warmUpOnce(): void {
    const warmUp = this.spec.warmUp;
    if (this.warmedUp || !warmUp) return;
    this.warmedUp = true;
    setTimeout(() => {
      try {
        warmUp();
      } catch (e) {
        this.log.debug("warm-up failed (done again on first use)", e);
      }
    }, 20).unref();
  }

  get status(): SessionStatus {
    return this.life.status;
  }
  get pid(): number | undefined {
    return this.life.pid;
  }
  get startedAt(): number | undefined {
    return this.life.startedAt;
  }
  get failure(): string | undefined {
    return this.life.failure;
  }
  /** What the server announced in its initialize result (static registrations only). */
  get capabilities(): ServerCapabilities {
    return this.life.capabilities;
  }
  /** The server's name and version from its initialize result, when it gave them. */
  get serverInfo(): { name: string; version?: string } | undefined {
    return this.life.serverInfo;
  }
  get indexing(): boolean {
    return this.life.status === "ready" && this.readiness.indexing;
  }

  start(): void {
    this.life.start();
  }

  whenReady(signal?: AbortSignal): Promise<void> {
    return this.gate.whenReady(signal);
  }

  async request<R>(method: string, params: unknown, opts: RequestOptions = {}): Promise<R> {
    await this.outsideOverlays();
    return this.gate.request<R>(method, params, opts);
  }

  /**
   * `workspace/executeCommand` passthrough for adapters that ask their server something outside
   * the LSP; same readiness gate and bounds as `request`.
   */
  executeCommand<R>(command: string, args: unknown[], opts: RequestOptions = {}): Promise<R> {
    return this.request<R>("workspace/executeCommand", { command, arguments: args }, opts);
  }

  /**
   * Runs one of the server's own commands (a code action's) and returns the edits it sent back
   * through `workspace/applyEdit` meanwhile, unapplied: the caller hands them to the writer.
   */
  executeCollectingEdits<R>(
    command: string,
    args: unknown[],
    opts: RequestOptions = {},
  ): Promise<{ value: R; edits: WorkspaceEdit[] }> {
    return this.serverEdits.collect(() => this.executeCommand<R>(command, args, opts));
  }

  /**
   * Asks `fn` while the server sees `text` as the content of `absPath` (not written; see
   * Documents.overlay), then shows it the disk again.
   */
  withOverlay<T>(absPath: string, text: string, fn: () => Promise<T>): Promise<T> {
    return this.withOverlays([{ abs: absPath, text }], fn);
  }

  /**
   * `withOverlay` for several files at once: `fn` runs while the server sees every one of them.
   * One call holds overlays at a time; the others' requests wait (see `overlayHolder`).
   */
  async withOverlays<T>(
    files: ReadonlyArray<{ abs: string; text: string }>,
    fn: () => Promise<T>,
  ): Promise<T> {
    if (this.overlayHolder.getStore()) return this.overlaid(files, fn);
    // Checked and claimed in one turn: two waiters woken together cannot both claim.
    while (this.overlaysHeld) await this.overlaysHeld;
    let release!: () => void;
    this.overlaysHeld = new Promise((resolve) => {
      release = resolve;
    });
    try {
      return await this.overlayHolder.run(true, () => this.overlaid(files, fn));
    } finally {
      this.overlaysHeld = undefined;
      release();
    }
  }

  private async overlaid<T>(
    files: ReadonlyArray<{ abs: string; text: string }>,
    fn: () => Promise<T>,
  ): Promise<T> {
    await this.life.whenInitialized();
    const lifts: Array<() => Promise<void>> = [];
    try {
      for (const f of files) lifts.push(await this.disk.documents.overlay(f.abs, f.text));
      return await fn();
    } finally {
      for (const lift of lifts.reverse()) await lift();
      if (lifts.length > 0) this.disk.overlayLifted();
    }
  }

  /** Resolves once no other call holds overlays. */
  private async outsideOverlays(): Promise<void> {
    while (this.overlaysHeld && !this.overlayHolder.getStore()) await this.overlaysHeld;
  }

  /**
   * Why answers from this server may miss results right now, or undefined when they are whole:
   * the one place where the server's state decides `complete` (tools add their own scope limits).
   * Checks the tree on the spot, so a dead worker found here also fails the session.
   */
  answerGap(): string | undefined {
    return this.gate.answerGap();
  }

  /**
   * For tools that change files from this server's answers (safe delete, rename): throws unless
   * the server is healthy now. `action` completes "Nothing was …" (e.g. "deleted").
   */
  assertHealthy(action: string): void {
    this.gate.assertHealthy(action);
  }

  async sync(absPath: string): Promise<OpenDocument> {
    await this.outsideOverlays();
    const doc = await this.disk.sync(absPath);
    return { uri: doc.uri, version: doc.version, text: doc.text };
  }

  /** Re-sends every open document that changed on disk, announces other changed files. */
  async refreshOpenDocuments(): Promise<void> {
    await this.life.whenInitialized();
    await this.disk.syncWithDisk(true);
  }

  /**
   * Tells `listener` every path that may have changed on disk, as this session learns of it: what
   * the watcher reported (hints: files or directories, taken at each sync) and what scalpel wrote
   * (`didWrite`). A cache of something read from the disk forgets on them; it may trust their
   * silence only for directories `watches` names. Returns the function that stops telling.
   */
  onDiskChange(listener: (absPaths: readonly string[]) => void): () => void {
    return this.disk.onDiskChange(listener);
  }

  /** Whether a change by another process to an entry directly in `absDir` reaches `onDiskChange`. */
  watches(absDir: string): boolean {
    return this.disk.watches(absDir);
  }

  didWrite(absPaths: string[]): Promise<void> {
    return this.disk.didWrite(absPaths);
  }

  /**
   * Diagnostics of the file as the disk is now. Settled means settled: after the server's answer
   * the disk is checked again, and a change that arrived meanwhile (to this file or any other) is
   * synced and waited for, within the same bound; past it the answer says `complete: false`.
   */
  async diagnostics(absPath: string, opts: DiagnosticsOptions = {}): Promise<DiagnosticsResult> {
    await this.outsideOverlays();
    return this.fileDiagnostics.of(absPath, opts);
  }

  /**
   * Every diagnostics set the server published, by URI (a pull server's checker included): files
   * an edit broke that nobody opened show up here (a checker may publish errors in any file of
   * the project, e.g. in code a rename did not reach).
   */
  publishedDiagnostics(): Map<string, Diagnostic[]> {
    return this.store.all();
  }

  shutdown(): Promise<void> {
    return this.life.shutdown();
  }
}
