/**
 * A checker that runs beside a pull-diagnostics server and publishes its findings by push (a
 * compiler run on save). Its runs are visible only as `$/progress` with a known title; a save (and,
 * for a checker that `startsAfterLoad`, the server's start-up) means a run is expected. A
 * diagnostics answer waits, bounded, for the expected run to begin and end, and says when it could
 * not.
 */
import type { PushedChecker } from "./types.js";

type Token = string | number;

export interface CheckState {
  complete: boolean;
  reason?: string;
  /**
   * A run was expected (a save) and none began within `startWithinMs`: the pushed findings
   * describe an older state. The caller may ask for a run again (another save) and settle again.
   */
  missedStart?: boolean;
}

export class PushedCheck {
  /**
   * Runs begun and not yet ended, per progress token. A count, not a flag: a checker that restarts
   * under one token may announce the new run before it ends the cancelled one (begin, begin, end),
   * and a flag would call the checker idle while the new run still works. A suspected cause (not
   * confirmed) of a rename's delta that once came back complete without the checker's error, with
   * four test files running at once on two cores.
   */
  private readonly running = new Map<Token, number>();
  private expectedAt = 0;
  private lastBeginAt = 0;
  private lastEndAt = 0;
  private readonly waiters = new Set<() => void>();

  constructor(private readonly checker: PushedChecker) {}

  /** After a run's end, how long nothing new must come before the checker counts as idle. */
  private get quietMs(): number {
    return this.checker.quietAfterEndMs ?? 0;
  }

  /** A run is due (after a save, or once the server has loaded the workspace). */
  expectRun(at = Date.now()): void {
    this.expectedAt = Math.max(this.expectedAt, at);
    this.wake();
  }

  progress(token: Token, value: unknown): void {
    if (typeof value !== "object" || value === null) return;
    const v = value as { kind?: unknown; title?: unknown };
    if (v.kind === "begin") {
      if (typeof v.title !== "string" || !this.checker.progressTitle.test(v.title)) return;
      const now = Date.now();
      this.running.set(token, (this.running.get(token) ?? 0) + 1);
      this.lastBeginAt = now;
    } else if (v.kind === "end") {
      const open = this.running.get(token);
      if (open === undefined) return;
      if (open > 1) this.running.set(token, open - 1);
      else this.running.delete(token);
      this.lastEndAt = Date.now();
    } else return;
    this.wake();
  }

  get busy(): boolean {
    return this.running.size > 0 || this.awaitingStart(Date.now());
  }

  /** Waits until no run is running or expected, at most `maxWaitMs`. */
  async settle(signal?: AbortSignal, maxWaitMs = this.checker.maxWaitMs): Promise<CheckState> {
    const deadline = Date.now() + maxWaitMs;
    for (;;) {
      if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error("aborted");
      const now = Date.now();
      if (!this.busy && (now >= this.lastEndAt + this.quietMs || now >= deadline)) {
        if (this.expectedAt <= this.lastBeginAt) return { complete: true };
        // Reported once: the caller decides whether to ask again.
        this.expectedAt = this.lastBeginAt;
        return { complete: true, missedStart: true };
      }
      if (now >= deadline) {
        return {
          complete: false,
          reason: `${this.checker.name} still running after ${Math.round(maxWaitMs / 100) / 10} s; its findings may be missing or stale`,
        };
      }
      const wakeAt = !this.busy
        ? Math.min(deadline, this.lastEndAt + this.quietMs)
        : this.awaitingStart(now)
          ? Math.min(deadline, this.expectedAt + this.checker.startWithinMs)
          : deadline;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(t);
          this.waiters.delete(done);
          resolve();
        };
        const t = setTimeout(done, Math.max(1, wakeAt - now));
        this.waiters.add(done);
      });
    }
  }

  /** A run was expected, has not begun since, and may still begin. */
  private awaitingStart(now: number): boolean {
    return this.expectedAt > this.lastBeginAt && now < this.expectedAt + this.checker.startWithinMs;
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }
}
