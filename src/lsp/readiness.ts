/**
 * Decides when a server has finished loading the project, from the signals the server itself
 * sends (`$/progress`, a status notification its adapter names in ServerSpec.readiness) — never
 * from a fixed sleep alone. Requests are gated on it: a request waits while the server says it is
 * busy, bounded by the rule's `maxWaitMs`; after the bound the server is used anyway and
 * `indexing` stays true.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Logger } from "../core/log.js";
import type { ReadinessRule } from "./types.js";

type Token = string | number;

export type ProgressListener = (title: string, message?: string, percentage?: number) => void;

/** Told, for one tool call, what the call is waiting for on a server (one line of text). */
export type WaitListener = (message: string) => void;

/**
 * The listener of the tool call whose async context a wait runs in. A context rather than a
 * parameter: the waits sit under every symbol helper, and threading a callback through each of
 * them would touch most tools for the sake of one optional notification.
 */
const callListener = new AsyncLocalStorage<{ listener: WaitListener; since: number }>();

/**
 * Runs `fn` so that every server wait inside it reports to `listener` once the call has run for
 * WAIT_REPORT_AFTER_MS. Counted from the call's start, not each wait's: a cold
 * find_referencing_symbols on 300 files spent 2.5 s in hundreds of short documentSymbol requests
 * after the project load, each under a second, and told the client nothing.
 */
export function reportWaitsTo<T>(listener: WaitListener, fn: () => T): T {
  return callListener.run({ listener, since: Date.now() }, fn);
}

/** Runs `fn` without wait reports (for a caller that reports the servers' progress itself). */
export function withoutWaitReports<T>(fn: () => T): T {
  return callListener.exit(fn);
}

/** Bound on a readiness wait when the rule names none. */
const DEFAULT_MAX_WAIT_MS = 60_000;

/** Waits shorter than this are not worth a notification. */
export const WAIT_REPORT_AFTER_MS = 1000;

/**
 * Wraps `send` so that it passes on at most one message per `gapMs` (the latest one wins, sent when
 * the gap is over) and never the same text twice in a row; `stop` drops what is still pending.
 */
export function throttled(send: WaitListener, gapMs = 250): { listener: WaitListener; stop(): void } {
  let last = 0;
  let lastText: string | undefined;
  let pending: string | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    timer = undefined;
    if (pending === undefined || pending === lastText) return;
    lastText = pending;
    pending = undefined;
    last = Date.now();
    send(lastText);
  };
  return {
    listener: (message) => {
      pending = message;
      const wait = last + gapMs - Date.now();
      if (wait <= 0) flush();
      else timer ??= setTimeout(flush, wait);
    },
    stop: () => {
      if (timer) clearTimeout(timer);
      timer = undefined;
      pending = undefined;
    },
  };
}

export class Readiness {
  private readonly open = new Map<
    Token,
    { title: string; since: number; message?: string; percentage?: number }
  >();
  /** The last status notification's message (e.g. an indexing state), shown while busy. */
  private statusMessage: string | undefined;
  /** Waits of tool calls that are currently reporting; told of every progress change. */
  private readonly watchers = new Set<() => void>();
  /** Progress tokens we stopped waiting for because they outlived the bound. */
  private readonly abandoned = new Set<Token>();
  private lastActivity = Date.now();
  private settleUntil = 0;
  private sawFirstOpen = false;
  /** What the status notification said last (before any: the rule's `initiallyBusy`). */
  private reportedBusy: boolean;
  private gaveUpStatus = false;
  private readonly waiters = new Set<() => void>();
  /** Whether anything holds requests at all; a server with no signal is used at once. */
  private readonly gated: boolean;
  private readonly maxWaitMs: number;

  constructor(
    private readonly rule: ReadinessRule,
    private readonly logger: Logger,
    private readonly onProgress: ProgressListener,
  ) {
    this.reportedBusy = rule.status?.initiallyBusy === true;
    this.gated =
      rule.waitForProgress === true ||
      rule.status !== undefined ||
      (rule.settleMs ?? 0) > 0 ||
      rule.firstOpenSettleMs !== undefined;
    this.maxWaitMs = rule.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
  }

  get indexing(): boolean {
    return (
      (this.rule.status !== undefined && this.reportedBusy) ||
      (this.rule.waitForProgress === true && this.open.size > 0)
    );
  }

  /** `window/workDoneProgress/create`: the server is about to report work under `token`. */
  created(token: Token): void {
    if (!this.open.has(token)) this.open.set(token, { title: "", since: Date.now() });
    // The work the settle window was waiting for has announced itself; now its end is awaited.
    this.settleUntil = 0;
    this.touch();
  }

  progress(token: Token, value: unknown): void {
    if (!isObject(value)) return;
    const kind = value.kind;
    const message = typeof value.message === "string" ? value.message : undefined;
    const percentage = typeof value.percentage === "number" ? value.percentage : undefined;
    if (kind === "begin") {
      const title = typeof value.title === "string" ? value.title : "";
      this.open.set(token, {
        title,
        since: this.open.get(token)?.since ?? Date.now(),
        ...(message !== undefined ? { message } : {}),
        ...(percentage !== undefined ? { percentage } : {}),
      });
      this.settleUntil = 0;
      this.onProgress(title, message, percentage);
    } else if (kind === "report") {
      const entry = this.open.get(token);
      if (entry) {
        if (message !== undefined) entry.message = message;
        if (percentage !== undefined) entry.percentage = percentage;
      }
      this.onProgress(this.open.get(token)?.title ?? "", message, percentage);
    } else if (kind === "end") {
      const entry = this.open.get(token);
      this.open.delete(token);
      this.abandoned.delete(token);
      if (entry) this.logger.debug(`progress done in ${Date.now() - entry.since} ms: ${entry.title}`);
    }
    this.touch();
    this.changed();
  }

  /** The rule's status notification (`status.method`) arrived with `params`. */
  status(params: unknown): void {
    if (!isObject(params)) return;
    const busy = this.rule.status?.busy(params);
    if (busy === undefined) return;
    this.reportedBusy = busy;
    if (!busy) this.gaveUpStatus = false;
    const message = this.rule.status?.message?.(params);
    if (message !== undefined) {
      this.statusMessage = message;
      this.onProgress("server status", message);
    }
    this.touch();
    this.changed();
  }

  /**
   * A document was opened. A server that starts loading a project only when its first file is
   * opened gets a settle window (`firstOpenSettleMs`) during which a progress may begin and must
   * be waited for.
   */
  documentOpened(): void {
    if (this.rule.firstOpenSettleMs === undefined || this.sawFirstOpen) return;
    this.sawFirstOpen = true;
    this.settleUntil = Date.now() + this.rule.firstOpenSettleMs;
    this.touch();
  }

  /** Resolves when the initial load is over (or the bound was hit). */
  async initialLoad(signal?: AbortSignal): Promise<void> {
    if (!this.gated) return;
    const settleMs = this.rule.settleMs ?? 0;
    this.lastActivity = Date.now();
    const started = Date.now();
    const done = () =>
      !this.statusBusy() && !this.progressBusy() && Date.now() - this.lastActivity >= settleMs;
    const ok = await this.waitUntil(done, started + this.maxWaitMs, signal);
    if (!ok) this.giveUp(this.maxWaitMs);
    else this.logger.debug(`initial load settled after ${Date.now() - started} ms`);
  }

  /** Gate for one request: wait while the server reports work, bounded by the rule. */
  async idle(signal?: AbortSignal): Promise<void> {
    if (!this.gated) return;
    const busy = () => Date.now() < this.settleUntil || this.statusBusy() || this.progressBusy();
    if (!busy()) return;
    const started = Date.now();
    const ok = await this.waitUntil(() => !busy(), started + this.maxWaitMs, signal);
    if (!ok) this.giveUp(this.maxWaitMs);
    else this.logger.debug(`request waited ${Date.now() - started} ms for the server to settle`);
  }

  /**
   * What the server says it is doing now, e.g. "Loading the project" or "Indexing 40/212 (core)"
   * (a progress's title and message, or the status notification's message); undefined when it
   * reports nothing.
   */
  describe(): string | undefined {
    const latest = [...this.open.values()].filter((e) => e.title || e.message).at(-1);
    if (latest) {
      const text = [latest.title, latest.message].filter(Boolean).join(" ");
      return latest.percentage === undefined ? text : `${text} (${latest.percentage}%)`;
    }
    if (this.statusBusy() && this.statusMessage) return this.statusMessage;
    // The first-open window: the server loads a project after the first didOpen and announces it
    // a moment later.
    if (Date.now() < this.settleUntil) return "waiting for the project load to begin";
    return undefined;
  }

  /**
   * Awaits `work`; when the current tool call listens (reportWaitsTo) and has run for
   * WAIT_REPORT_AFTER_MS (at once if it already has), tells it `<label>: <what the server is
   * doing>` (or `what` when the server says nothing), then again on each progress change until the
   * wait is over.
   */
  async reportWhile<T>(label: string, what: string, work: Promise<T>): Promise<T> {
    const call = callListener.getStore();
    if (!call) return work;
    const { listener } = call;
    let reporting = false;
    const report = () => {
      if (reporting) listener(`${label}: ${this.describe() ?? what}`);
    };
    const first = setTimeout(
      () => {
        reporting = true;
        report();
      },
      Math.max(0, call.since + WAIT_REPORT_AFTER_MS - Date.now()),
    );
    this.watchers.add(report);
    try {
      return await work;
    } finally {
      clearTimeout(first);
      this.watchers.delete(report);
    }
  }

  private changed(): void {
    for (const w of [...this.watchers]) w();
  }

  private statusBusy(): boolean {
    return this.rule.status !== undefined && !this.gaveUpStatus && this.reportedBusy;
  }

  /** An open progress holds requests (the rule says so and it did not outlive a bound yet). */
  private progressBusy(): boolean {
    return this.rule.waitForProgress === true && this.activeTokens().length > 0;
  }

  private activeTokens(): Token[] {
    return [...this.open.keys()].filter((t) => !this.abandoned.has(t));
  }

  private giveUp(maxWaitMs: number): void {
    const titles = [...this.open.values()].map((v) => v.title).filter(Boolean);
    for (const t of this.open.keys()) this.abandoned.add(t);
    this.settleUntil = 0;
    this.gaveUpStatus = true;
    this.logger.info(
      `server still busy after ${maxWaitMs / 1000} s${titles.length ? ` (${titles.join(", ")})` : ""}; answering anyway, results may be incomplete while it indexes`,
    );
  }

  private touch(): void {
    this.lastActivity = Date.now();
    for (const w of [...this.waiters]) w();
  }

  /** Re-evaluates `done` on every signal and at least every 25 ms (settle windows are time-based). */
  private async waitUntil(done: () => boolean, deadline: number, signal?: AbortSignal): Promise<boolean> {
    while (!done()) {
      if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error("aborted");
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(t);
          this.waiters.delete(wake);
          resolve();
        };
        const t = setTimeout(wake, Math.min(left, 25));
        this.waiters.add(wake);
      });
    }
    return true;
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null;
}
