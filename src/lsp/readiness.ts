/**
 * Decides when a server has finished loading the project, from the signals the server itself
 * sends (`$/progress`, rust-analyzer's serverStatus, Dart's analyzerStatus) — never from a fixed
 * sleep alone. Requests are gated on it: a request waits while the server says it is busy, bounded
 * by the rule's `maxWaitMs`; after the bound the server is used anyway and `indexing` stays true.
 */
import type { Logger } from "../log.js";
import type { ReadinessRule } from "./types.js";

type Token = string | number;

export type ProgressListener = (title: string, message?: string, percentage?: number) => void;

export class Readiness {
  private readonly open = new Map<Token, { title: string; since: number }>();
  /** Progress tokens we stopped waiting for because they outlived the bound. */
  private readonly abandoned = new Set<Token>();
  private lastActivity = Date.now();
  private settleUntil = 0;
  private sawFirstOpen = false;
  private quiescent = false;
  private analyzing = false;
  private gaveUpStatus = false;
  private readonly waiters = new Set<() => void>();

  constructor(
    private readonly rule: ReadinessRule,
    private readonly logger: Logger,
    private readonly onProgress: ProgressListener,
  ) {}

  get indexing(): boolean {
    const kind = this.rule.kind;
    if (kind === "progress") return this.open.size > 0;
    if (kind === "server-status") return !this.quiescent;
    if (kind === "analyzer-status") return this.analyzing || this.open.size > 0;
    return false;
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
      this.open.set(token, { title, since: this.open.get(token)?.since ?? Date.now() });
      this.settleUntil = 0;
      this.onProgress(title, message, percentage);
    } else if (kind === "report") {
      this.onProgress(this.open.get(token)?.title ?? "", message, percentage);
    } else if (kind === "end") {
      const entry = this.open.get(token);
      this.open.delete(token);
      this.abandoned.delete(token);
      if (entry) this.logger.debug(`progress done in ${Date.now() - entry.since} ms: ${entry.title}`);
    }
    this.touch();
  }

  serverStatus(params: unknown): void {
    if (!isObject(params)) return;
    this.quiescent = params.quiescent === true;
    if (this.quiescent) this.gaveUpStatus = false;
    if (typeof params.message === "string") this.onProgress("server status", params.message);
    this.touch();
  }

  analyzerStatus(params: unknown): void {
    if (!isObject(params)) return;
    this.analyzing = params.isAnalyzing === true;
    if (!this.analyzing) this.gaveUpStatus = false;
    this.touch();
  }

  /**
   * A document was opened. tsserver starts loading a project only when its first file is opened,
   * so the first open gets a settle window during which a progress may begin and must be waited
   * for.
   */
  documentOpened(): void {
    if (this.rule.kind !== "progress" || this.sawFirstOpen) return;
    this.sawFirstOpen = true;
    this.settleUntil = Date.now() + (this.rule.firstOpenSettleMs ?? this.rule.settleMs);
    this.touch();
  }

  /** Resolves when the initial load is over (or the bound was hit). */
  async initialLoad(signal?: AbortSignal): Promise<void> {
    const rule = this.rule;
    if (rule.kind === "immediate") return;
    this.lastActivity = Date.now();
    const started = Date.now();
    const done =
      rule.kind === "progress"
        ? () => this.activeTokens().length === 0 && Date.now() - this.lastActivity >= rule.settleMs
        : rule.kind === "analyzer-status"
          ? () =>
              !this.statusBusy() &&
              this.activeTokens().length === 0 &&
              Date.now() - this.lastActivity >= (rule.settleMs ?? 0)
          : () => !this.statusBusy();
    const ok = await this.waitUntil(done, started + rule.maxWaitMs, signal);
    if (!ok) this.giveUp(rule.maxWaitMs);
    else this.logger.debug(`initial load settled after ${Date.now() - started} ms`);
  }

  /** Gate for one request: wait while the server reports work, bounded by the rule. */
  async idle(signal?: AbortSignal): Promise<void> {
    const rule = this.rule;
    if (rule.kind === "immediate") return;
    const busy =
      rule.kind === "progress"
        ? () => Date.now() < this.settleUntil || this.activeTokens().length > 0
        : rule.kind === "analyzer-status"
          ? () => this.statusBusy() || this.activeTokens().length > 0
          : () => this.statusBusy();
    if (!busy()) return;
    const started = Date.now();
    const ok = await this.waitUntil(() => !busy(), started + rule.maxWaitMs, signal);
    if (!ok) this.giveUp(rule.maxWaitMs);
    else this.logger.debug(`request waited ${Date.now() - started} ms for the server to settle`);
  }

  private statusBusy(): boolean {
    if (this.gaveUpStatus) return false;
    return this.rule.kind === "server-status" ? !this.quiescent : this.analyzing;
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
