/**
 * JSON-RPC over a server's stdio. Every request is bounded (timeout → `$/cancelRequest`), can be
 * aborted by the caller, and is retried when the server says its answer went stale
 * (ContentModified / ServerCancelled). A dead connection rejects everything in flight at once.
 */
import type { Readable, Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import {
  CancellationTokenSource,
  createMessageConnection,
  type MessageConnection,
  ResponseError,
  StreamMessageReader,
  StreamMessageWriter,
} from "vscode-languageserver-protocol/node";
import { AppError } from "../core/errors.js";
import type { Logger } from "../core/log.js";
import { trace, tracing } from "./traffic-trace.js";

export const CONTENT_MODIFIED = -32801;
export const SERVER_CANCELLED = -32802;
export const METHOD_NOT_FOUND = -32601;
const MAX_RETRIES = 3;

export interface RequestBounds {
  timeoutMs: number;
  signal?: AbortSignal | undefined;
}

export class LspConnection {
  private readonly conn: MessageConnection;
  private readonly inFlight = new Set<(err: Error) => void>();
  private deadError: Error | undefined;

  constructor(
    readable: Readable,
    writable: Writable,
    private readonly logger: Logger,
    /** Used in messages: "<adapter id> language server". */
    private readonly label: string,
  ) {
    this.conn = createMessageConnection(
      new StreamMessageReader(readable),
      new StreamMessageWriter(writable),
      {
        error: (m) => logger.debug(`jsonrpc: ${m}`),
        warn: (m) => logger.debug(`jsonrpc: ${m}`),
        info: (m) => logger.debug(`jsonrpc: ${m}`),
        log: (m) => logger.debug(`jsonrpc: ${m}`),
      },
    );
  }

  get raw(): MessageConnection {
    return this.conn;
  }

  listen(): void {
    this.conn.listen();
  }

  /** Rejects every in-flight and future request with `err`. */
  kill(err: Error): void {
    if (this.deadError) return;
    this.deadError = err;
    for (const reject of [...this.inFlight]) reject(err);
    this.inFlight.clear();
  }

  dispose(): void {
    try {
      this.conn.dispose();
    } catch {
      // Disposing a connection whose stream already closed can throw; nothing is left to free.
    }
  }

  async notify(method: string, params: unknown): Promise<void> {
    if (this.deadError) return;
    if (tracing) trace(this.label, "notification", method, params);
    try {
      // `undefined` means "no params" (shutdown, exit): vscode-jsonrpc would send `[null]`, which
      // a strictly typed server refuses ("invalid type: sequence, expected unit", measured).
      if (params === undefined) await this.conn.sendNotification(method);
      else await this.conn.sendNotification(method, params);
    } catch (e) {
      this.logger.debug(`notification ${method} not sent`, e instanceof Error ? e.message : e);
    }
  }

  async request<R>(method: string, params: unknown, bounds: RequestBounds): Promise<R> {
    if (!tracing) return this.requestRetried<R>(method, params, bounds);
    const began = performance.now();
    try {
      const answer = await this.requestRetried<R>(method, params, bounds);
      trace(this.label, "request", method, params, { ms: performance.now() - began });
      return answer;
    } catch (e) {
      trace(this.label, "request", method, params, { ms: performance.now() - began, failed: true });
      throw e;
    }
  }

  private async requestRetried<R>(method: string, params: unknown, bounds: RequestBounds): Promise<R> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.requestOnce<R>(method, params, bounds);
      } catch (e) {
        const code = e instanceof ResponseError ? e.code : undefined;
        if ((code === CONTENT_MODIFIED || code === SERVER_CANCELLED) && attempt < MAX_RETRIES) {
          this.logger.debug(`${method}: server answered ${code}, retrying (${attempt + 1}/${MAX_RETRIES})`);
          await sleep(50 * 2 ** attempt);
          continue;
        }
        if (e instanceof ResponseError) {
          throw new AppError("internal", `The ${this.label} failed on ${method}: ${e.message}`, {
            lspCode: e.code,
          });
        }
        throw e;
      }
    }
  }

  private requestOnce<R>(method: string, params: unknown, bounds: RequestBounds): Promise<R> {
    if (this.deadError) return Promise.reject(this.deadError);
    const { signal, timeoutMs } = bounds;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    const cts = new CancellationTokenSource();
    return new Promise<R>((resolve, reject) => {
      let settled = false;
      const finish = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.inFlight.delete(onDead);
        cts.dispose();
        fn();
      };
      const onDead = (err: Error) => finish(() => reject(err));
      // Cancelling the token makes vscode-jsonrpc send `$/cancelRequest` for this id.
      const onAbort = () => {
        cts.cancel();
        finish(() => reject(abortReason(signal)));
      };
      const timer = setTimeout(() => {
        cts.cancel();
        const secs = Math.round(timeoutMs / 100) / 10;
        finish(() =>
          reject(
            new AppError(
              "request_timeout",
              `The ${this.label} did not answer ${method} in time: timed out after ${secs} s. It may still be loading the project or be overloaded; retry, or restart the language server.`,
              { method, timeoutMs },
            ),
          ),
        );
      }, timeoutMs);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.inFlight.add(onDead);
      const sent =
        params === undefined
          ? this.conn.sendRequest<R>(method, cts.token)
          : this.conn.sendRequest<R>(method, params, cts.token);
      sent.then(
        (r) => finish(() => resolve(r)),
        (e: unknown) => finish(() => reject(e)),
      );
    });
  }
}

function abortReason(signal: AbortSignal | undefined): Error {
  const r: unknown = signal?.reason;
  return r instanceof Error ? r : new Error("request aborted");
}
