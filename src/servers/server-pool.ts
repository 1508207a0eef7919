/**
 * One language server per language of the project, started on demand (or eagerly at activation),
 * restarted after a crash or a health failure (a dead tsserver under a live wrapper) within a
 * budget, and stopped together.
 */
import { extname } from "node:path";
import { AppError } from "../core/errors.js";
import type { Logger } from "../core/log.js";
import type { LanguageAdapter } from "../languages/adapter.js";
import { LspSession } from "../lsp/session.js";
import type { SessionStatus } from "../lsp/types.js";

export interface ServerState {
  language: string;
  command: string;
  status: SessionStatus | "missing";
  detail?: string;
  pid?: number;
  uptime_s?: number;
  restarts: number;
}

export type ProgressSink = (message: string) => void;

interface Slot {
  adapter: LanguageAdapter;
  session: LspSession | null;
  missing?: string;
  /** Every restart since activation (shown by get_current_config). */
  restarts: number;
  /** When the restarts that count against the budget happened. */
  recent: number[];
}

/**
 * A server is restarted at most `restartBudget` times within `restartWindowMs`; past that it stays
 * failed (a server that crashes at every start would otherwise loop) until the window has moved on
 * or the project is activated again (`renew`), so it is never down for the rest of the session.
 */
const restartBudget = 3;
const restartWindowMs = 10 * 60_000;

/** Wait before the n-th restart within the window: the first at once, then 1 s, 2 s, 4 s, … */
export function restartBackoffMs(n: number): number {
  return n <= 1 ? 0 : Math.min(1000 * 2 ** (n - 2), 8000);
}

export class ServerPool {
  private readonly slots = new Map<string, Slot>();
  private readonly byExt = new Map<string, string>();
  private progressSink: ProgressSink | null = null;
  /** Set by shutdown: a pool of a project no longer active starts no server again. */
  private closed = false;

  constructor(
    private readonly root: string,
    adapters: readonly LanguageAdapter[],
    private readonly log: Logger,
  ) {
    for (const adapter of adapters) {
      this.slots.set(adapter.id, { adapter, session: null, restarts: 0, recent: [] });
      for (const ext of adapter.extensions) this.byExt.set(ext, adapter.id);
    }
  }

  /** Whether shutdown ran: the project is no longer active. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Where start-up progress goes while a client listens for it. */
  setProgressSink(sink: ProgressSink | null): void {
    this.progressSink = sink;
  }

  adapterForPath(path: string): LanguageAdapter | null {
    const id = this.byExt.get(extname(path).toLowerCase());
    return id === undefined ? null : (this.slots.get(id)?.adapter ?? null);
  }

  get languages(): string[] {
    return [...this.slots.keys()];
  }

  /** Starts the server of a language in the background; returns at once. */
  start(language: string): void {
    const slot = this.slots.get(language);
    if (!slot) return;
    this.ensureSession(slot);
  }

  /** The running (or starting) session that serves a file, or an error that says why there is none. */
  sessionFor(path: string): { session: LspSession; adapter: LanguageAdapter } {
    const ext = extname(path).toLowerCase();
    const id = this.byExt.get(ext);
    const slot = id === undefined ? undefined : this.slots.get(id);
    if (!slot) {
      throw new AppError(
        "language_server_unavailable",
        `No language server handles ${ext || "extension-less"} files in this project. Use read_file or search_for_pattern for this file.`,
      );
    }
    const session = this.ensureSession(slot);
    return { session, adapter: slot.adapter };
  }

  /**
   * Activation again: every server gets its full restart budget back, and a failed one is started
   * again at once.
   */
  renew(): void {
    for (const slot of this.slots.values()) {
      slot.recent = [];
      if (slot.session?.status !== "failed") continue;
      try {
        this.ensureSession(slot);
      } catch (error) {
        this.log.warn(
          `cannot restart ${slot.adapter.id} server`,
          error instanceof Error ? error.message : error,
        );
      }
    }
  }

  private ensureSession(slot: Slot): LspSession {
    if (slot.session && (slot.session.status === "starting" || slot.session.status === "ready"))
      return slot.session;
    if (this.closed) {
      throw new AppError(
        "language_server_unavailable",
        "This project's language servers were stopped (another project was activated). Call activate_project for it again.",
      );
    }
    let startDelayMs = 0;
    if (slot.session && slot.session.status === "failed") {
      const now = Date.now();
      slot.recent = slot.recent.filter((t) => now - t < restartWindowMs);
      if (slot.recent.length >= restartBudget) {
        throw new AppError(
          "language_server_unavailable",
          `The ${slot.adapter.displayName} server failed ${slot.recent.length + 1} times within ${restartWindowMs / 60_000} minutes (last: ${slot.session.failure ?? "unknown reason"}). It is not restarted again on its own: check it with 'scalpel doctor', then call activate_project for this project to restart it.`,
        );
      }
      slot.recent.push(now);
      slot.restarts++;
      startDelayMs = restartBackoffMs(slot.recent.length);
      this.log.warn(
        `restarting ${slot.adapter.id} server (restart ${slot.restarts}${startDelayMs ? `, in ${startDelayMs} ms` : ""}): ${slot.session.failure ?? "failed"}`,
      );
    }
    const spec = slot.adapter.spec(this.root);
    if ("missing" in spec) {
      slot.missing = spec.missing;
      throw new AppError("language_server_unavailable", spec.missing);
    }
    const name = slot.adapter.displayName;
    const session = new LspSession(spec, this.root, this.log.child(slot.adapter.id), {
      // The project watcher skips every adapter's heavy directories (a Rust crate inside a
      // TypeScript repo still has `target/`).
      watchIgnoredDirs: [...new Set([...this.slots.values()].flatMap((s) => s.adapter.ignoredDirs))],
      ...(startDelayMs > 0 ? { startDelayMs } : {}),
      onStatus: (status, detail) => this.progressSink?.(`${name}: ${status}${detail ? ` (${detail})` : ""}`),
      onProgress: (title, message, pct) =>
        this.progressSink?.(
          `${name}: ${title}${message ? ` ${message}` : ""}${pct === undefined ? "" : ` ${pct}%`}`,
        ),
    });
    slot.session = session;
    session.start();
    return session;
  }

  /** Waits until every started server is ready or failed, at most `maxMs`. */
  async waitUntilSettled(maxMs: number, signal?: AbortSignal): Promise<void> {
    const sessions = [...this.slots.values()].flatMap((s) => (s.session ? [s.session] : []));
    const bound = new Promise<void>((resolve) => setTimeout(resolve, maxMs).unref());
    await Promise.race([bound, Promise.allSettled(sessions.map((s) => s.whenReady(signal)))]);
  }

  /**
   * Languages whose server is starting or ready, read from the sessions alone: unlike states(), it
   * resolves no adapter's launch (which runs `rust-analyzer --version` or `gopls version`, synchronously,
   * for languages the project may not even have).
   */
  startedLanguages(): string[] {
    return [...this.slots.values()]
      .filter((slot) => slot.session?.status === "starting" || slot.session?.status === "ready")
      .map((slot) => slot.adapter.id);
  }

  states(): ServerState[] {
    return [...this.slots.values()].map((slot) => {
      const spec = slot.adapter.spec(this.root);
      const command = "missing" in spec ? "" : [spec.launch.command, ...spec.launch.args].join(" ");
      const s = slot.session;
      const state: ServerState = {
        language: slot.adapter.id,
        command: redactCommand(command, this.root),
        status: s ? s.status : "missing" in spec ? "missing" : "stopped",
        restarts: slot.restarts,
      };
      const detail = "missing" in spec ? spec.missing : s?.failure;
      if (detail) state.detail = detail;
      if (s?.pid !== undefined && s.status !== "stopped") state.pid = s.pid;
      if (s?.startedAt !== undefined && s.status !== "stopped")
        state.uptime_s = Math.round((Date.now() - s.startedAt) / 1000);
      return state;
    });
  }

  async didWrite(absPaths: string[]): Promise<void> {
    const running = [...this.slots.values()].flatMap((s) =>
      s.session?.status === "ready" ? [s.session] : [],
    );
    await Promise.all(running.map((s) => s.didWrite(absPaths)));
  }

  async shutdown(): Promise<void> {
    this.closed = true;
    const sessions = [...this.slots.values()].flatMap((s) => (s.session ? [s.session] : []));
    await Promise.all(sessions.map((s) => s.shutdown()));
  }
}

/** Commands can hold host paths (node binary, package dir); results must not. */
function redactCommand(command: string, root: string): string {
  return command
    .split(" ")
    .map((part) => {
      if (part.startsWith(root)) return part.slice(root.length + 1) || ".";
      if (part.includes("/node_modules/")) return part.slice(part.lastIndexOf("/node_modules/") + 1);
      if (part.startsWith("/")) return part.slice(part.lastIndexOf("/") + 1);
      return part;
    })
    .join(" ");
}
