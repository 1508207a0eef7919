/**
 * The one way a question reaches the server: after it is ready and idle (readiness), after the
 * disk's changes were announced, bounded by a timeout, and only passed on when the processes that
 * computed the answer are still there. Also the one place that says whether answers are whole now.
 */
import { AppError, isAppError } from "../core/errors.js";
import type { ServerLifecycle } from "./lifecycle.js";
import type { Readiness } from "./readiness.js";
import type { RequestOptions } from "./types.js";

const DEFAULT_TIMEOUT_MS = 30_000;

export class RequestGate {
  constructor(
    private readonly life: ServerLifecycle,
    private readonly readiness: Readiness,
    /**
     * Announces files changed by others before any question. Open documents are not re-sent then:
     * the caller computes positions on the text it synced, and the answer must fit it.
     */
    private readonly announceDiskChanges: () => Promise<unknown>,
    private readonly requestTimeoutMs = DEFAULT_TIMEOUT_MS,
  ) {}

  async whenReady(signal?: AbortSignal): Promise<void> {
    await this.readiness.reportWhile(this.life.label, "starting", abortable(this.life.whenReady(), signal));
  }

  async request<R>(method: string, params: unknown, opts: RequestOptions = {}): Promise<R> {
    const life = this.life;
    await this.whenReady(opts.signal);
    await this.readiness.reportWhile(
      life.label,
      "finishing its current work",
      this.readiness.idle(opts.signal),
    );
    await this.announceDiskChanges();
    const conn = life.conn;
    if (!conn || life.status !== "ready") throw life.unavailable();
    let answer: R;
    try {
      answer = await this.readiness.reportWhile(
        life.label,
        `answering ${method}`,
        conn.request<R>(method, params, {
          timeoutMs: opts.timeoutMs ?? this.requestTimeoutMs,
          signal: opts.signal,
        }),
      );
    } catch (e) {
      // A timeout is a health event: a stopped process in the tree explains it, and then the
      // server is restarted rather than asked again.
      if (isAppError(e) && e.code === "request_timeout" && life.health?.poll() !== undefined)
        throw life.crashed(`answering ${method}`);
      throw e;
    }
    // An answer is whole only if the processes that computed it are still there: a wrapper whose
    // worker died may answer `[]`.
    if (life.health?.check() !== undefined || life.status !== "ready")
      throw life.crashed(`answering ${method}`);
    return answer;
  }

  /** See LspSession.answerGap. */
  answerGap(): string | undefined {
    const life = this.life;
    if (life.status === "ready") life.health?.check();
    if (life.status === "failed") return life.failure ?? `the ${life.label} failed`;
    if (life.status !== "ready") return `the ${life.label} is ${life.status}`;
    return this.readiness.indexing ? "server still indexing" : undefined;
  }

  /** See LspSession.assertHealthy. */
  assertHealthy(action: string): void {
    const life = this.life;
    if (life.status === "ready") life.health?.check();
    if (life.status === "ready") return;
    throw new AppError(
      "server_crashed",
      `Nothing was ${action}: the answers it relied on came from an unhealthy server. ${life.failure ?? `The ${life.label} is ${life.status}.`} Call again in a few seconds: the server is restarted on the next call (get_current_config shows its status).`,
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
