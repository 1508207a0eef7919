/**
 * One running language server for one root: lifecycle (spawn → initialize → ready → shutdown),
 * readiness gating, document sync, diagnostics, crash handling. Knows nothing about tools.
 */
import { basename, relative } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type {
  Diagnostic,
  DocumentDiagnosticReport,
  PublishDiagnosticsParams,
  Registration,
  ServerCapabilities,
} from "vscode-languageserver-protocol";
import { ResponseError } from "vscode-languageserver-protocol/node";
import { AppError, isAppError } from "../errors.js";
import type { Logger } from "../log.js";
import { clientCapabilities } from "./capabilities.js";
import { LspConnection, METHOD_NOT_FOUND } from "./connection.js";
import { DiagnosticsStore } from "./diagnostics.js";
import { Documents, type TrackedDocument } from "./documents.js";
import { FileWatcher } from "./file-watcher.js";
import { TreeHealth } from "./health.js";
import { type ServerProcess, spawnServer, terminateGroup } from "./process.js";
import { PushedCheck } from "./pushed-check.js";
import { Readiness } from "./readiness.js";
import type { DiagnosticsResult, OpenDocument, RequestOptions, ServerSpec, SessionStatus } from "./types.js";
import { pathToUri } from "./uri.js";
import { WatchRegistrations } from "./watch-registrations.js";

export interface SessionEvents {
  onStatus?(status: SessionStatus, detail?: string): void;
  onProgress?(title: string, message?: string, percentage?: number): void;
}

export interface SessionOptions extends SessionEvents {
  /**
   * Directory names the project watcher watches only at their top level (the adapters' build and
   * dependency directories); version-control directories are never watched.
   */
  watchIgnoredDirs?: readonly string[];
  /** Wait this long before spawning (a restart's backoff); the session is `starting` meanwhile. */
  startDelayMs?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const INITIALIZE_TIMEOUT_MS = 60_000;
const SHUTDOWN_REQUEST_MS = 1_500;
const DEFAULT_DIAG_WAIT_MS = 10_000;
const DEFAULT_DIAG_QUIET_MS = 700;

export class LspSession {
  private _status: SessionStatus = "stopped";
  private _failure: string | undefined;
  private _startedAt: number | undefined;
  private proc: ServerProcess | undefined;
  /** Watches every process of the server's tree (see health.ts); set once spawned. */
  private health: TreeHealth | undefined;
  private conn: LspConnection | undefined;
  private started = false;
  private stopping = false;
  private initialized!: Promise<void>;
  private ready!: Promise<void>;
  private shutdownPromise: Promise<void> | undefined;
  private readonly readiness: Readiness;
  private readonly store = new DiagnosticsStore();
  private readonly documents: Documents;
  private readonly log: Logger;
  private readonly label: string;
  private readonly rootUri: string;
  /** Event-clock value of the last `didWrite`; dependants of written files need a re-check. */
  private lastWriteSeq = 0;
  private pullUnsupported = false;
  private checkFileUnsupported = false;
  /** How many flushes re-sent or announced something, and the files of the last one. */
  private movedCount = 0;
  private movedPaths: string[] = [];
  private _capabilities: ServerCapabilities = {};
  private _serverInfo: { name: string; version?: string } | undefined;
  private readonly pushedCheck: PushedCheck | undefined;
  /** File watchers the server registered; the project watcher runs once there is one. */
  private readonly registrations = new WatchRegistrations();
  private watcher: FileWatcher | undefined;
  private readonly diskListeners = new Set<(absPaths: readonly string[]) => void>();

  constructor(
    readonly spec: ServerSpec,
    private readonly rootDir: string,
    logger: Logger,
    private readonly events: SessionOptions = {},
  ) {
    this.log = logger.child(spec.id);
    this.label = `${spec.id} language server`;
    this.rootUri = pathToUri(rootDir);
    this.readiness = new Readiness(spec.readiness, this.log, (title, message, percentage) =>
      this.events.onProgress?.(title, message, percentage),
    );
    this.documents = new Documents({
      notify: (method, params) => this.conn?.notify(method, params) ?? Promise.resolve(),
      languageIdFor: (ext) => spec.languageIdFor(ext),
      tick: () => this.store.tick(),
      onOpened: () => this.readiness.documentOpened(),
      saveOnSync: spec.saveOnSync === true,
      onSaved: () => this.pushedCheck?.expectRun(),
    });
    this.pushedCheck = spec.pushedAlongsidePull ? new PushedCheck(spec.pushedAlongsidePull) : undefined;
  }

  get status(): SessionStatus {
    return this._status;
  }
  get pid(): number | undefined {
    return this.proc?.pid;
  }
  get startedAt(): number | undefined {
    return this._startedAt;
  }
  get failure(): string | undefined {
    return this._failure;
  }
  /** What the server announced in its initialize result (static registrations only). */
  get capabilities(): ServerCapabilities {
    return this._capabilities;
  }
  /** The server's name and version from its initialize result, when it gave them. */
  get serverInfo(): { name: string; version?: string } | undefined {
    return this._serverInfo;
  }
  get indexing(): boolean {
    return this._status === "ready" && this.readiness.indexing;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this._startedAt = Date.now();
    this.setStatus("starting");
    this.initialized = this.boot();
    this.ready = this.initialized.then(async () => {
      await this.readiness.initialLoad();
      if (this._status !== "starting") throw this.unavailable();
      const missing = this.health?.missing();
      if (missing !== undefined) throw this.unavailable();
      // rust-analyzer starts a `cargo check` once the workspace is loaded (observed 1–3 ms after
      // quiescent): diagnostics asked for right away wait for it like for one after a save.
      this.pushedCheck?.expectRun();
      this.setStatus("ready");
    });
    // Rejections are observed by whoever awaits whenReady; these copies must not go unhandled.
    this.initialized.catch(() => undefined);
    this.ready.catch(() => undefined);
  }

  async whenReady(signal?: AbortSignal): Promise<void> {
    if (!this.started) this.start();
    await this.readiness.reportWhile(this.label, "starting", abortable(this.ready, signal));
  }

  async request<R>(method: string, params: unknown, opts: RequestOptions = {}): Promise<R> {
    await this.whenReady(opts.signal);
    await this.readiness.reportWhile(
      this.label,
      "finishing its current work",
      this.readiness.idle(opts.signal),
    );
    // Files changed by others are announced before any question. Open documents are not re-sent
    // here: the caller computes positions on the text it synced, and the answer must fit it.
    await this.syncWithDisk(false);
    const conn = this.conn;
    if (!conn || this._status !== "ready") throw this.unavailable();
    let answer: R;
    try {
      answer = await this.readiness.reportWhile(
        this.label,
        `answering ${method}`,
        conn.request<R>(method, params, {
          timeoutMs: opts.timeoutMs ?? this.spec.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS,
          signal: opts.signal,
        }),
      );
    } catch (e) {
      // A timeout is a health event: a stopped process in the tree explains it, and then the
      // server is restarted rather than asked again.
      if (isAppError(e) && e.code === "request_timeout" && this.health?.poll() !== undefined)
        throw this.crashed(`answering ${method}`);
      throw e;
    }
    // An answer is whole only if the processes that computed it are still there: tsls answers
    // `[]` once its tsserver is gone.
    if (this.health?.check() !== undefined || this._status !== "ready")
      throw this.crashed(`answering ${method}`);
    return answer;
  }

  /**
   * Why answers from this server may miss results right now, or undefined when they are whole:
   * the one place where the server's state decides `complete` (tools add their own scope limits).
   * Checks the tree on the spot, so a dead worker found here also fails the session.
   */
  answerGap(): string | undefined {
    if (this._status === "ready") this.health?.check();
    if (this._status === "failed") return this._failure ?? `the ${this.label} failed`;
    if (this._status !== "ready") return `the ${this.label} is ${this._status}`;
    return this.readiness.indexing ? "server still indexing" : undefined;
  }

  /**
   * For tools that change files from this server's answers (safe delete, rename): throws unless
   * the server is healthy now. `action` completes "Nothing was …" (e.g. "deleted").
   */
  assertHealthy(action: string): void {
    if (this._status === "ready") this.health?.check();
    if (this._status === "ready") return;
    throw new AppError(
      "server_crashed",
      `Nothing was ${action}: the answers it relied on came from an unhealthy server. ${this._failure ?? `The ${this.label} is ${this._status}.`} Call again in a few seconds: the server is restarted on the next call (get_current_config shows its status).`,
    );
  }

  async sync(absPath: string): Promise<OpenDocument> {
    const doc = await this.syncTracked(absPath);
    return { uri: doc.uri, version: doc.version, text: doc.text };
  }

  /** Re-sends every open document that changed on disk, announces other changed files. */
  async refreshOpenDocuments(): Promise<void> {
    await this.whenInitialized();
    await this.syncWithDisk(true);
  }

  /**
   * Tells `listener` every path that may have changed on disk, as this session learns of it: what
   * the watcher reported (hints: files or directories, taken at each sync) and what scalpel wrote
   * (`didWrite`). A cache of something read from the disk forgets on them; it may trust their
   * silence only for directories `watches` names. Returns the function that stops telling.
   */
  onDiskChange(listener: (absPaths: readonly string[]) => void): () => void {
    this.diskListeners.add(listener);
    return () => this.diskListeners.delete(listener);
  }

  /** Whether a change by another process to an entry directly in `absDir` reaches `onDiskChange`. */
  watches(absDir: string): boolean {
    return this.watcher?.watches(absDir) === true;
  }

  private tellDisk(absPaths: readonly string[]): void {
    if (absPaths.length > 0) for (const listener of this.diskListeners) listener(absPaths);
  }

  async didWrite(absPaths: string[]): Promise<void> {
    this.tellDisk(absPaths);
    await this.whenInitialized();
    this.lastWriteSeq = this.store.tick();
    await this.documents.didWrite(absPaths);
  }

  /**
   * Diagnostics of the file as the disk is now. Settled means settled: after the server's answer
   * the disk is checked again, and a change that arrived meanwhile (to this file or any other) is
   * synced and waited for, within the same bound; past it the answer says `complete: false`.
   */
  async diagnostics(
    absPath: string,
    opts: { maxWaitMs?: number; quietMs?: number; signal?: AbortSignal } = {},
  ): Promise<DiagnosticsResult> {
    const maxWaitMs = opts.maxWaitMs ?? DEFAULT_DIAG_WAIT_MS;
    const deadline = Date.now() + maxWaitMs;
    for (;;) {
      await this.whenInitialized();
      await this.syncWithDisk(true);
      // Requests made during the check flush too: any flush from here on means the check may
      // describe an older disk.
      const since = this.movedCount;
      const left = Math.max(0, deadline - Date.now());
      const result = await this.diagnosticsOnce(absPath, { ...opts, maxWaitMs: left }, maxWaitMs);
      await this.syncWithDisk(true);
      if (this.movedCount === since) return result;
      const moved = this.movedPaths;
      if (Date.now() >= deadline) {
        const names = moved.slice(0, 3).map((p) => relative(this.rootDir, p) || ".");
        return {
          diagnostics: result.diagnostics,
          complete: false,
          incompleteReason: `files kept changing on disk while the server checked (${names.join(", ")}${moved.length > 3 ? ", …" : ""}); call again once they are written`,
        };
      }
    }
  }

  private async diagnosticsOnce(
    absPath: string,
    opts: { maxWaitMs: number; quietMs?: number; signal?: AbortSignal },
    boundMs: number,
  ): Promise<DiagnosticsResult> {
    let doc = await this.syncTracked(absPath);
    if (this.spec.diagnostics === "pull" && !this.pullUnsupported) {
      try {
        const report = await this.request<DocumentDiagnosticReport>(
          "textDocument/diagnostic",
          { textDocument: { uri: doc.uri } },
          opts.signal ? { signal: opts.signal } : {},
        );
        // Without previousResultId the server must answer "full".
        if (report.kind === "full") {
          if (!this.pushedCheck) return { diagnostics: report.items, complete: true };
          return await this.withPushedCheck(doc.uri, opts.signal);
        }
      } catch (e) {
        if (!(isAppError(e) && e.details?.lspCode === METHOD_NOT_FOUND)) throw e;
        this.log.info("server does not support pull diagnostics; using published diagnostics");
        this.pullUnsupported = true;
      }
    }
    const checked = await this.checkFile(doc.uri, opts.maxWaitMs, boundMs, opts.signal);
    if (checked) return checked;
    await this.whenReady(opts.signal);
    const last = this.store.get(doc.uri);
    if (this.lastWriteSeq > doc.changedSeq && (last === undefined || this.lastWriteSeq > last.seq)) {
      // Another file was written since this one was last checked: its errors may have changed
      // although its text did not, and push servers re-check only on a change of their own.
      doc = (await this.documents.touch(doc.uri)) ?? doc;
    }
    const maxWaitMs = opts.maxWaitMs;
    const settling = this.store.settle(doc.uri, {
      afterSeq: doc.changedSeq,
      notBefore: doc.changedAt + (this.spec.diagnosticsDelayMs?.(doc.text) ?? 0),
      minVersion: doc.version,
      maxWaitMs,
      quietMs: opts.quietMs ?? DEFAULT_DIAG_QUIET_MS,
      signal: opts.signal,
    });
    const complete = await this.readiness.reportWhile(this.label, "checking the file", settling);
    if (this._status === "failed") throw this.crashed("waiting for diagnostics");
    const diagnostics = this.store.get(doc.uri)?.diagnostics ?? [];
    return complete
      ? { diagnostics, complete }
      : {
          diagnostics,
          complete,
          incompleteReason: `diagnostics still pending after ${Math.round(boundMs / 100) / 10} s`,
        };
  }

  /**
   * The server's own on-request check of one file (ServerSpec.checkFile), bounded by what is left
   * of the diagnostics bound; undefined when the server has none or it turned out unsupported.
   */
  private async checkFile(
    uri: string,
    leftMs: number,
    boundMs: number,
    signal: AbortSignal | undefined,
  ): Promise<DiagnosticsResult | undefined> {
    const check = this.spec.checkFile;
    if (!check || this.checkFileUnsupported) return undefined;
    const run = <R>(command: string, args: unknown[], o: RequestOptions) =>
      this.executeCommand<R>(command, args, o);
    try {
      const diagnostics = await check(run, uri, {
        timeoutMs: Math.max(1, leftMs),
        ...(signal ? { signal } : {}),
      });
      return { diagnostics, complete: true };
    } catch (e) {
      if (isAppError(e) && e.code === "request_timeout") {
        return {
          diagnostics: this.store.get(uri)?.diagnostics ?? [],
          complete: false,
          incompleteReason: `the server's check of this file did not finish within ${Math.round(boundMs / 100) / 10} s; these are its last published diagnostics`,
        };
      }
      if (!isAppError(e) || e.details?.lspCode === undefined) throw e;
      // An error answer: published diagnostics instead; for good when the server lacks the method.
      this.log.info(`on-request check failed (${messageOf(e)}); using published diagnostics`);
      if (e.details.lspCode === METHOD_NOT_FOUND) this.checkFileUnsupported = true;
      return undefined;
    }
  }

  /**
   * Pulled diagnostics merged with the checker's pushed ones, after waiting (bounded) for the
   * checker's pending run; pulled again after the wait so both describe the same text.
   */
  private async withPushedCheck(uri: string, signal: AbortSignal | undefined): Promise<DiagnosticsResult> {
    const state = await this.readiness.reportWhile(
      this.label,
      `waiting for ${this.spec.pushedAlongsidePull?.name ?? "the checker"}`,
      this.settlePushedCheck(uri, signal),
    );
    if (this._status === "failed") throw this.crashed("waiting for diagnostics");
    const report = await this.request<DocumentDiagnosticReport>(
      "textDocument/diagnostic",
      { textDocument: { uri } },
      signal ? { signal } : {},
    );
    const pulled = report.kind === "full" ? report.items : [];
    const pushed = this.store.get(uri)?.diagnostics ?? [];
    const seen = new Set<string>();
    const diagnostics = [...pulled, ...pushed].filter((d) => {
      const key = JSON.stringify([d.range, d.message, d.code ?? null, d.severity ?? null]);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    return state.complete
      ? { diagnostics, complete: true }
      : { diagnostics, complete: false, incompleteReason: state.reason ?? "checker still running" };
  }

  /**
   * Every diagnostics set the server published, by URI (a pull server's checker included): files
   * an edit broke that nobody opened show up here (rust-analyzer's `cargo check` publishes errors in
   * any file of the crate, e.g. a `macro_rules!` body a rename did not reach).
   */
  publishedDiagnostics(): Map<string, Diagnostic[]> {
    return this.store.all();
  }

  /**
   * Waits for the checker's expected run. rust-analyzer may drop the `cargo check` a save asked for:
   * on serde_json, after a rename wrote 7 files (didChange + didSave each), no run began at all and
   * the pushed errors stayed those of the state before the rename (measured: 0 errors, complete,
   * for 60 s while `cargo check` had 37). A missed run is asked for once more by saving the file
   * again; when that one does not begin either, the answer says it may be stale.
   */
  private async settlePushedCheck(
    uri: string,
    signal: AbortSignal | undefined,
  ): Promise<{ complete: boolean; reason?: string }> {
    const check = this.pushedCheck!;
    const first = await check.settle(signal);
    if (!first.missedStart) return first;
    this.log.debug(`${this.spec.pushedAlongsidePull?.name} did not start after a save; saving ${uri} again`);
    await this.conn?.notify("textDocument/didSave", { textDocument: { uri } });
    check.expectRun();
    const again = await check.settle(signal);
    if (!again.missedStart) return again;
    return {
      complete: false,
      reason: `${this.spec.pushedAlongsidePull?.name} did not run after the last change; its findings may be stale`,
    };
  }

  shutdown(): Promise<void> {
    this.shutdownPromise ??= this.stop();
    return this.shutdownPromise;
  }

  /**
   * `workspace/executeCommand` passthrough for adapters that ask their server something outside
   * the LSP (tsls's `typescript.tsserverRequest`); same readiness gate and bounds as `request`.
   */
  executeCommand<R>(command: string, args: unknown[], opts: RequestOptions = {}): Promise<R> {
    return this.request<R>("workspace/executeCommand", { command, arguments: args }, opts);
  }

  // ---- internals ----

  private async syncTracked(absPath: string): Promise<TrackedDocument> {
    await this.whenInitialized();
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
  private async syncWithDisk(openDocuments: boolean): Promise<string[]> {
    const changes = this.watcher ? await this.watcher.drain() : [];
    this.tellDisk(changes.map((c) => c.path));
    const filter = this.registrations.any ? this.registrations : undefined;
    const { paths } = await this.documents.syncWithDisk(changes, filter, openDocuments);
    if (paths.length > 0) {
      this.lastWriteSeq = this.store.tick();
      this.movedCount++;
      this.movedPaths = paths;
    }
    return paths;
  }

  private onRegisterCapability(params: { registrations?: Registration[] }): null {
    if (!this.registrations.register(params.registrations ?? []) || this.watcher || this.stopping)
      return null;
    const watcher = new FileWatcher(this.rootDir, {
      ignoredDirs: this.events.watchIgnoredDirs ?? [],
      onError: (message) => this.log.warn(`file watcher: ${message}; changes there reach the server late`),
    });
    this.watcher = watcher;
    void watcher.ready.then(() => this.log.debug(`watching ${watcher.watchedDirCount} directories`));
    return null;
  }

  /** Documents may be sent once `initialized` went out; full readiness is only needed for requests. */
  private async whenInitialized(): Promise<void> {
    if (!this.started) this.start();
    await this.initialized;
    if (this._status === "failed" || this._status === "stopped") throw this.unavailable();
  }

  private async boot(): Promise<void> {
    if (this.events.startDelayMs) {
      await sleep(this.events.startDelayMs);
      if (this.stopping) throw this.unavailable();
    }
    const proc = spawnServer(this.spec.launch, this.rootDir, this.log);
    this.proc = proc;
    void proc.exited.then(({ code, signal, spawnError }) => {
      if (this.stopping) return;
      if (spawnError) this.fail(`could not be started (${spawnError})`);
      else this.fail(`exited unexpectedly (${signal ? `signal ${signal}` : `exit code ${code}`})`);
    });
    const stdout = proc.child.stdout;
    const stdin = proc.child.stdin;
    if (proc.pid === undefined || !stdout || !stdin) {
      const { spawnError } = await proc.exited;
      this.fail(`could not be started (${spawnError ?? "no process"})`);
      throw this.unavailable();
    }
    this.watchForGarbage(stdout);
    this.health = new TreeHealth(proc.pid, this.spec.essentialProcesses ?? [], (reason) => {
      if (!this.stopping) this.fail(reason);
    });
    this.health.start();
    const conn = new LspConnection(stdout, stdin, this.log, this.label);
    this.conn = conn;
    this.registerHandlers(conn);
    conn.raw.onError(([err]) => {
      // While stopping, writes to a server that already left fail; that is not its fault.
      if (this.stopping) return;
      this.fail(`broke the protocol connection (${err.message.split("\n")[0]})`);
    });
    conn.raw.onClose(() => {
      // The pipe usually closes just before the exit is reported; prefer the exit code as reason.
      void Promise.race([proc.exited, sleep(200)]).then(() => {
        if (!this.stopping) this.fail("closed its connection");
      });
    });
    conn.listen();
    try {
      const init = await conn.request<{
        capabilities?: ServerCapabilities;
        serverInfo?: { name: string; version?: string };
      } | null>(
        "initialize",
        {
          processId: process.pid,
          clientInfo: { name: "scalpel" },
          rootUri: this.rootUri,
          rootPath: this.rootDir,
          workspaceFolders: [{ uri: this.rootUri, name: basename(this.rootDir) }],
          capabilities: clientCapabilities,
          initializationOptions: this.spec.initializationOptions ?? null,
        },
        { timeoutMs: INITIALIZE_TIMEOUT_MS },
      );
      this._capabilities = init?.capabilities ?? {};
      this._serverInfo = init?.serverInfo;
      await conn.notify("initialized", {});
      if (this.spec.didChangeConfigurationSettings !== undefined) {
        await conn.notify("workspace/didChangeConfiguration", {
          settings: this.spec.didChangeConfigurationSettings,
        });
      }
    } catch (e) {
      const reason =
        isAppError(e) && e.code === "request_timeout" ? "did not answer initialize" : messageOf(e);
      this.fail(`failed to initialize (${reason})`);
      throw this.unavailable();
    }
    if (this._status !== "starting") throw this.unavailable();
    this.log.debug(`initialized in ${Date.now() - (this._startedAt ?? 0)} ms`);
  }

  private registerHandlers(conn: LspConnection): void {
    const c = conn.raw;
    c.onRequest("workspace/configuration", (params: { items?: { section?: string; scopeUri?: string }[] }) =>
      (params.items ?? []).map((item) => this.spec.configuration?.(item.section, item.scopeUri) ?? null),
    );
    c.onRequest("client/registerCapability", (params: { registrations?: Registration[] }) =>
      this.onRegisterCapability(params),
    );
    // The protocol spells the field `unregisterations`.
    c.onRequest("client/unregisterCapability", (params: { unregisterations?: { id: string }[] }) => {
      this.registrations.unregister((params.unregisterations ?? []).map((u) => u.id));
      return null;
    });
    c.onRequest("window/workDoneProgress/create", (params: { token: string | number }) => {
      this.readiness.created(params.token);
      return null;
    });
    // rust-analyzer asks clients to re-pull diagnostics after `cargo check`; scalpel pulls per call.
    c.onRequest("workspace/diagnostic/refresh", () => null);
    c.onRequest("workspace/workspaceFolders", () => [{ uri: this.rootUri, name: basename(this.rootDir) }]);
    c.onRequest("window/showMessageRequest", () => null);
    // Scalpel validates and applies edits itself; a server never writes through us.
    c.onRequest("workspace/applyEdit", () => ({
      applied: false,
      failureReason: "client applies edits itself",
    }));
    c.onNotification("$/progress", (params: { token: string | number; value: unknown }) => {
      this.pushedCheck?.progress(params.token, params.value);
      this.readiness.progress(params.token, params.value);
    });
    c.onNotification("textDocument/publishDiagnostics", (params: PublishDiagnosticsParams) =>
      this.store.publish(params),
    );
    c.onNotification("experimental/serverStatus", (params: unknown) => this.readiness.serverStatus(params));
    c.onNotification("$/analyzerStatus", (params: unknown) => this.readiness.analyzerStatus(params));
    c.onNotification("window/logMessage", (params: { message?: string }) =>
      this.log.debug(`server: ${params.message}`),
    );
    c.onNotification("window/showMessage", (params: { message?: string }) =>
      this.log.debug(`server message: ${params.message}`),
    );
    c.onNotification((method: string) => this.log.debug(`ignored notification ${method}`));
    c.onRequest((method: string) => {
      this.log.debug(`unsupported server request ${method}`);
      return new ResponseError(METHOD_NOT_FOUND, `scalpel does not handle ${method}`);
    });
  }

  /** LSP output always starts with a `Content-` header; anything else means a broken server. */
  private watchForGarbage(stdout: NodeJS.ReadableStream): void {
    let head = "";
    const onData = (chunk: Buffer | string) => {
      head += chunk.toString().slice(0, 8);
      if (head.length < 8) {
        if ("Content-".toLowerCase().startsWith(head.toLowerCase())) return;
      } else if (head.slice(0, 8).toLowerCase() === "content-") {
        stdout.removeListener("data", onData);
        return;
      }
      stdout.removeListener("data", onData);
      this.fail("wrote non-LSP output to stdout");
    };
    stdout.on("data", onData);
  }

  private fail(reason: string): void {
    if (this._status === "failed" || this._status === "stopped") return;
    this._failure = `The ${this.label} ${reason}.`;
    this.log.warn(this._failure);
    this.health?.stop();
    this.conn?.kill(this.crashed());
    this.watcher?.close();
    this.setStatus("failed", this._failure);
    const pid = this.proc?.pid;
    this.conn?.dispose();
    if (pid !== undefined) void terminateGroup(pid, 500);
  }

  private async stop(): Promise<void> {
    const wasLive = this._status === "starting" || this._status === "ready";
    this.stopping = true;
    this.health?.stop();
    this.started = true;
    this.initialized ??= Promise.reject(this.unavailable());
    this.ready ??= this.initialized;
    this.initialized.catch(() => undefined);
    const proc = this.proc;
    const conn = this.conn;
    try {
      if (wasLive && conn && proc && !proc.hasExited) {
        await conn
          .request("shutdown", undefined, { timeoutMs: SHUTDOWN_REQUEST_MS })
          .catch((e: unknown) => this.log.debug("shutdown request failed", messageOf(e)));
        await conn.notify("exit", undefined);
        await Promise.race([proc.exited, sleep(500)]);
      }
    } catch (e) {
      this.log.debug("shutdown sequence", messageOf(e));
    }
    this.setStatus("stopped");
    this.watcher?.close();
    conn?.kill(this.unavailable());
    conn?.dispose();
    // Even after a clean exit, helpers the server forked may linger in its group.
    if (proc?.pid !== undefined) await terminateGroup(proc.pid, 1000);
  }

  private setStatus(status: SessionStatus, detail?: string): void {
    if (this._status === status) return;
    this._status = status;
    try {
      if (detail === undefined) this.events.onStatus?.(status);
      else this.events.onStatus?.(status, detail);
    } catch (e) {
      this.log.warn("status listener threw", e);
    }
  }

  private unavailable(): AppError {
    if (this._status === "stopped") {
      return new AppError("language_server_unavailable", `The ${this.label} was stopped.`);
    }
    return new AppError(
      "language_server_unavailable",
      `${this._failure ?? `The ${this.label} is not available.`} Retry the call: the server is started again (within a restart budget); if it keeps failing, check it with \`scalpel doctor\`.`,
    );
  }

  private crashed(during?: string): AppError {
    return new AppError(
      "server_crashed",
      `${this._failure ?? `The ${this.label} crashed.`}${during ? ` (while ${during})` : ""} Retry the call; the server will be started again.`,
    );
  }
}

function abortable<T>(p: Promise<T>, signal?: AbortSignal): Promise<T> {
  if (!signal) return p;
  if (signal.aborted)
    return Promise.reject(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
