/**
 * One language server process's life: spawn → initialize → ready, then shutdown or failure. Owns
 * the status, the process, its connection and tree health, and the errors that say why the server
 * cannot answer. What happens between (requests, documents, diagnostics) lives in the files that
 * LspSession composes; this one only calls the hooks it is given at the right moments.
 */
import { basename } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { ServerCapabilities } from "vscode-languageserver-protocol";
import { AppError, isAppError } from "../core/errors.js";
import type { Logger } from "../core/log.js";
import { type ServerProcess, spawnServer, terminateGroup } from "../process/spawn.js";
import { clientCapabilities } from "./capabilities.js";
import { LspConnection } from "./connection.js";
import { TreeHealth } from "./health.js";
import type { ServerSpec, SessionStatus } from "./types.js";

export interface SessionEvents {
  onStatus?(status: SessionStatus, detail?: string): void;
  onProgress?(title: string, message?: string, percentage?: number): void;
}

export interface LifecycleHooks {
  /** Installs the handlers of the server's requests and notifications, before `initialize` goes out. */
  connected(conn: LspConnection): void;
  /** After `initialized`: resolves once the server has loaded the project (readiness). */
  loaded(): Promise<void>;
  /** The server is healthy and loaded; the status turns `ready` right after. */
  ready(): void;
  /** The session failed or is stopping: release what watches the project. */
  closed(): void;
}

const INITIALIZE_TIMEOUT_MS = 60_000;
const SHUTDOWN_REQUEST_MS = 1_500;

export class ServerLifecycle {
  private _status: SessionStatus = "stopped";
  private _failure: string | undefined;
  private _startedAt: number | undefined;
  private proc: ServerProcess | undefined;
  /** Watches every process of the server's tree (see health.ts); set once spawned. */
  private _health: TreeHealth | undefined;
  private _conn: LspConnection | undefined;
  private started = false;
  private _stopping = false;
  private initialized!: Promise<void>;
  private ready!: Promise<void>;
  private shutdownPromise: Promise<void> | undefined;
  private _capabilities: ServerCapabilities = {};
  private _serverInfo: { name: string; version?: string } | undefined;

  constructor(
    private readonly spec: ServerSpec,
    private readonly rootDir: string,
    private readonly rootUri: string,
    private readonly log: Logger,
    /** Used in messages: "<id> language server". */
    readonly label: string,
    private readonly events: SessionEvents & { startDelayMs?: number },
    private readonly hooks: LifecycleHooks,
  ) {}

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
  get capabilities(): ServerCapabilities {
    return this._capabilities;
  }
  get serverInfo(): { name: string; version?: string } | undefined {
    return this._serverInfo;
  }
  get conn(): LspConnection | undefined {
    return this._conn;
  }
  get health(): TreeHealth | undefined {
    return this._health;
  }
  get stopping(): boolean {
    return this._stopping;
  }
  /** Starts the server if needed; resolves once it is ready, rejects with why it never will be. */
  whenReady(): Promise<void> {
    if (!this.started) this.start();
    return this.ready;
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this._startedAt = Date.now();
    this.setStatus("starting");
    this.initialized = this.boot();
    this.ready = this.initialized.then(async () => {
      await this.hooks.loaded();
      if (this._status !== "starting") throw this.unavailable();
      const missing = this._health?.missing();
      if (missing !== undefined) throw this.unavailable();
      this.hooks.ready();
      this.setStatus("ready");
    });
    // Rejections are observed by whoever awaits whenReady; these copies must not go unhandled.
    this.initialized.catch(() => undefined);
    this.ready.catch(() => undefined);
  }

  /** Documents may be sent once `initialized` went out; full readiness is only needed for requests. */
  async whenInitialized(): Promise<void> {
    if (!this.started) this.start();
    await this.initialized;
    if (this._status === "failed" || this._status === "stopped") throw this.unavailable();
  }

  shutdown(): Promise<void> {
    this.shutdownPromise ??= this.stop();
    return this.shutdownPromise;
  }

  fail(reason: string): void {
    if (this._status === "failed" || this._status === "stopped") return;
    this._failure = `The ${this.label} ${reason}.`;
    this.log.warn(this._failure);
    this._health?.stop();
    this._conn?.kill(this.crashed());
    this.hooks.closed();
    this.setStatus("failed", this._failure);
    const pid = this.proc?.pid;
    this._conn?.dispose();
    if (pid !== undefined) void terminateGroup(pid, 500);
  }

  unavailable(): AppError {
    if (this._status === "stopped") {
      return new AppError("language_server_unavailable", `The ${this.label} was stopped.`);
    }
    return new AppError(
      "language_server_unavailable",
      `${this._failure ?? `The ${this.label} is not available.`} Retry the call: the server is started again (within a restart budget); if it keeps failing, check it with \`scalpel doctor\`.`,
    );
  }

  crashed(during?: string): AppError {
    return new AppError(
      "server_crashed",
      `${this._failure ?? `The ${this.label} crashed.`}${during ? ` (while ${during})` : ""} Retry the call; the server will be started again.`,
    );
  }

  private async boot(): Promise<void> {
    if (this.events.startDelayMs) {
      await sleep(this.events.startDelayMs);
      if (this._stopping) throw this.unavailable();
    }
    const proc = spawnServer(this.spec.launch, this.rootDir, this.log);
    this.proc = proc;
    void proc.exited.then(({ code, signal, spawnError }) => {
      if (this._stopping) return;
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
    this._health = new TreeHealth(proc.pid, this.spec.essentialProcesses ?? [], (reason) => {
      if (!this._stopping) this.fail(reason);
    });
    this._health.start();
    const conn = new LspConnection(stdout, stdin, this.log, this.label);
    this._conn = conn;
    this.hooks.connected(conn);
    conn.raw.onError(([err]) => {
      // While stopping, writes to a server that already left fail; that is not its fault.
      if (this._stopping) return;
      this.fail(`broke the protocol connection (${err.message.split("\n")[0]})`);
    });
    conn.raw.onClose(() => {
      // The pipe usually closes just before the exit is reported; prefer the exit code as reason.
      void Promise.race([proc.exited, sleep(200)]).then(() => {
        if (!this._stopping) this.fail("closed its connection");
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
          capabilities: clientCapabilities(this.spec.clientCapabilities),
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

  private async stop(): Promise<void> {
    const wasLive = this._status === "starting" || this._status === "ready";
    this._stopping = true;
    this._health?.stop();
    this.started = true;
    this.initialized ??= Promise.reject(this.unavailable());
    this.ready ??= this.initialized;
    this.initialized.catch(() => undefined);
    const proc = this.proc;
    const conn = this._conn;
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
    this.hooks.closed();
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
}

export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
