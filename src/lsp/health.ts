/**
 * Whether every process of a language server's tree can still answer. A wrapper whose worker was
 * killed may stay up, start no new worker and answer every request with `[]` (no error; measured,
 * see the adapters' `essentialProcesses`) — so the wrapper's liveness says nothing.
 *
 * The tree is polled (each poll ~0.3 ms on a 3-process tree, so once a second costs nothing), and
 * the essential processes already adopted are checked again after every answer (a few µs): an
 * answer that arrives after its worker died is never passed on as a whole one, however soon after
 * the kill it comes.
 */
import { descendants, processState } from "../process/tree.js";
import type { EssentialProcess } from "./types.js";

const DEFAULT_POLL_MS = 1000;

/** Stopped by a signal (T) or by a tracer (t): it will answer nothing until resumed. */
const stopped = (state: string) => state === "T" || state === "t";

export class TreeHealth {
  /** Essential processes seen in the tree, by pid. */
  private readonly adopted = new Map<number, string>();
  private readonly seenNames = new Set<string>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private problem: string | undefined;

  /**
   * `onUnhealthy` gets a reason that completes "The <server> …" (e.g. "lost its worker process
   * (pid 12 exited)"), once.
   */
  constructor(
    private readonly rootPid: number,
    private readonly essentials: readonly EssentialProcess[],
    private readonly onUnhealthy: (reason: string) => void,
    private readonly pollMs = DEFAULT_POLL_MS,
  ) {}

  start(): void {
    if (this.timer) return;
    this.poll();
    this.timer = setInterval(() => this.poll(), this.pollMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** A full look at the tree: adopts new essential processes, finds stopped ones. */
  poll(): string | undefined {
    if (this.problem) return this.problem;
    const rootState = processState(this.rootPid);
    if (rootState !== undefined && stopped(rootState)) return this.report(`is stopped (pid ${this.rootPid})`);
    const tree = descendants(this.rootPid);
    if (!tree) return undefined;
    for (const p of tree) {
      const name = this.essentials.find((e) => e.commandLine.test(p.commandLine))?.name;
      if (stopped(p.state))
        return this.report(`has a stopped ${name ? `${name} ` : ""}process (pid ${p.pid}): it cannot answer`);
      if (name !== undefined && p.state !== "Z" && !this.adopted.has(p.pid)) {
        this.adopted.set(p.pid, name);
        this.seenNames.add(name);
      }
    }
    return this.check();
  }

  /** The cheap check: are the adopted essential processes still alive and running? */
  check(): string | undefined {
    if (this.problem) return this.problem;
    for (const [pid, name] of this.adopted) {
      const state = processState(pid);
      // Undefined: gone (reaped by its parent); Z: exited, not reaped yet.
      if (state === undefined || state === "Z")
        return this.report(`lost its ${name} process (pid ${pid} exited)`);
      if (stopped(state)) return this.report(`has a stopped ${name} process (pid ${pid}): it cannot answer`);
    }
    return undefined;
  }

  /**
   * For when the server says it is ready: an essential process that never showed up means the
   * server answers without it. Off Linux nothing can be seen, so nothing is claimed missing.
   */
  missing(): string | undefined {
    const found = this.poll();
    if (found) return found;
    if (descendants(this.rootPid) === undefined) return undefined;
    const absent = this.essentials.filter((e) => !this.seenNames.has(e.name)).map((e) => e.name);
    return absent.length > 0 ? this.report(`runs no ${absent.join(" or ")} process`) : undefined;
  }

  private report(reason: string): string {
    if (this.problem) return this.problem;
    this.problem = reason;
    this.stop();
    this.onUnhealthy(reason);
    return reason;
  }
}
