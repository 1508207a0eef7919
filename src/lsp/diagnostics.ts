/**
 * Store of pushed diagnostics. Servers give no "done" signal (one measured publishing an empty set
 * and then the errors up to half a second later), so a caller waits for a publish newer than its own
 * last change and then for a quiet period, bounded, and is told when the bound was hit.
 */
import type { Diagnostic, PublishDiagnosticsParams } from "vscode-languageserver-protocol";
import { normalizeUri } from "./uri.js";

export interface PublishedSet {
  diagnostics: Diagnostic[];
  version: number | undefined;
  /** Position on the session's event clock (shared with document changes). */
  seq: number;
  at: number;
}

export interface SettleOptions {
  /** Only publishes with `seq` greater than this count. */
  afterSeq: number;
  /** Publishes received before this time (ms since epoch) are provisional. */
  notBefore?: number;
  /** Publishes that carry an older document version are stale. */
  minVersion?: number;
  maxWaitMs: number;
  quietMs: number;
  signal?: AbortSignal | undefined;
}

export class DiagnosticsStore {
  private clock = 0;
  private readonly byUri = new Map<string, PublishedSet>();
  private readonly waiters = new Set<() => void>();

  /** Next value of the event clock; document changes take one so publishes can be ordered after them. */
  tick(): number {
    this.clock += 1;
    return this.clock;
  }

  publish(params: PublishDiagnosticsParams): void {
    this.byUri.set(normalizeUri(params.uri), {
      diagnostics: params.diagnostics,
      version: params.version,
      seq: this.tick(),
      at: Date.now(),
    });
    for (const w of [...this.waiters]) w();
  }

  /** Every published set by normalised URI (a copy): what an edit's delta compares before and after. */
  all(): Map<string, Diagnostic[]> {
    return new Map([...this.byUri].map(([uri, set]) => [uri, set.diagnostics]));
  }

  get(uri: string): PublishedSet | undefined {
    return this.byUri.get(normalizeUri(uri));
  }

  /** Waits for a fresh publish and then `quietMs` without another; false when `maxWaitMs` ran out. */
  async settle(uri: string, opts: SettleOptions): Promise<boolean> {
    const key = normalizeUri(uri);
    const deadline = Date.now() + opts.maxWaitMs;
    const fresh = (s: PublishedSet | undefined): s is PublishedSet =>
      s !== undefined &&
      s.seq > opts.afterSeq &&
      s.at >= (opts.notBefore ?? 0) &&
      (opts.minVersion === undefined || s.version === undefined || s.version >= opts.minVersion);
    for (;;) {
      if (opts.signal?.aborted)
        throw opts.signal.reason instanceof Error ? opts.signal.reason : new Error("aborted");
      const now = Date.now();
      const current = this.byUri.get(key);
      let wakeAt = deadline;
      if (fresh(current)) {
        const quietEnd = current.at + opts.quietMs;
        if (now >= quietEnd) return true;
        wakeAt = Math.min(deadline, quietEnd);
      }
      if (now >= deadline) return false;
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(t);
          this.waiters.delete(wake);
          resolve();
        };
        const t = setTimeout(wake, Math.max(1, wakeAt - now));
        this.waiters.add(wake);
      });
    }
  }
}
