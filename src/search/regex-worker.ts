/**
 * Runs a caller's regular expression off the main thread, in a worker that is terminated at its
 * deadline. A JavaScript regex backtracks: `(a+)+$` on a long line of `a`s ending in another
 * character runs for hours, and synchronous code cannot be interrupted by a timer or a
 * Promise.race — it froze the whole server, every other call included. In a worker it only burns
 * its own thread until `terminate()`, which V8 honours inside a running regex (measured: 2 ms).
 *
 * Why a worker and not a linear-time engine (RE2 ports): the tools promise JavaScript regular
 * expressions, and patterns people write use what RE2 leaves out on purpose — lookbehind
 * (`(?<![\w$])name`), lookahead, backreferences (`(['"]).*?\1`); a worker keeps every one of them
 * and the exact V8 semantics. V8's own linear engine (`--enable-experimental-regexp-engine`) needs
 * a flag and refuses the same features.
 *
 * Cost (measured, Node 20): a worker starts in ~50 ms, so a few are kept idle; a round trip with a
 * 4 KiB text is ~0.15 ms and a 4 MiB text is copied in ~4 ms. search_for_pattern sends small files
 * in batches to keep the round trips few.
 *
 * The worker's code is a plain-JavaScript string run with `eval: true`: it needs no file of its
 * own, so it works the same from `dist/` and from the TypeScript sources under tsx.
 */
import { Worker } from "node:worker_threads";

const workerSource = `
const { parentPort } = require("node:worker_threads");
parentPort.on("message", (job) => {
  try {
    const re = new RegExp(job.source, job.flags);
    if (job.kind === "test") {
      const hits = new Uint8Array(job.texts.length);
      job.texts.forEach((text, i) => {
        re.lastIndex = 0;
        hits[i] = re.test(text) ? 1 : 0;
      });
      parentPort.postMessage({ hits }, [hits.buffer]);
      return;
    }
    if (job.kind === "spans") {
      const out = [];
      for (const text of job.texts) {
        let buf = new Int32Array(64);
        let n = 0;
        for (const m of text.matchAll(re)) {
          if (n + 2 > buf.length) {
            const bigger = new Int32Array(buf.length * 2);
            bigger.set(buf);
            buf = bigger;
          }
          buf[n++] = m.index;
          buf[n++] = m[0].length;
        }
        out.push(buf.slice(0, n));
      }
      parentPort.postMessage({ spans: out }, out.map((s) => s.buffer));
      return;
    }
    const matches = [];
    for (const m of job.texts[0].matchAll(re)) {
      if (matches.length >= job.maxMatches) {
        parentPort.postMessage({ tooMany: true });
        return;
      }
      matches.push({ index: m.index, captures: Array.from(m), groups: m.groups ? { ...m.groups } : undefined });
    }
    parentPort.postMessage({ matches });
  } catch (e) {
    parentPort.postMessage({ failed: String((e && e.message) || e) });
  }
});
`;

/** One match with its capture groups, as `String.prototype.replace` substitutions need them. */
export interface RegexMatch {
  index: number;
  /** `[0]` is the whole match, then each group (undefined when it did not take part). */
  captures: Array<string | undefined>;
  groups?: Record<string, string | undefined>;
}

/**
 * The regex ran past its time (its worker was terminated), the call was cancelled, or every worker
 * stayed busy with other calls' patterns for the whole bound.
 */
export class RegexStopped extends Error {
  constructor(readonly why: "timeout" | "cancelled" | "busy") {
    super(
      why === "timeout"
        ? "the regular expression ran past its time bound"
        : why === "busy"
          ? "every regex worker stayed busy"
          : "the call was cancelled",
    );
  }
}

/** The pattern threw while matching (e.g. its recursion is too deep for the stack). */
export class RegexFailed extends Error {}

/** More matches than a caller asked to receive. */
export class TooManyMatches extends Error {}

interface Bounds {
  timeoutMs: number;
  signal: AbortSignal;
}

/**
 * For each text, its matches as pairs `[index, length, index, length, …]` (with the `g` flag every
 * match; the pattern must carry it).
 */
export async function regexSpans(regex: RegExp, texts: string[], bounds: Bounds): Promise<Int32Array[]> {
  const reply = await run({ kind: "spans", source: regex.source, flags: regex.flags, texts }, bounds);
  return reply.spans as Int32Array[];
}

/** Whether the regex matches each text (as `RegExp.prototype.test`). */
export async function regexTests(regex: RegExp, texts: string[], bounds: Bounds): Promise<boolean[]> {
  const reply = await run({ kind: "test", source: regex.source, flags: regex.flags, texts }, bounds);
  return Array.from(reply.hits ?? [], (hit) => hit === 1);
}

/** Every match of a global regex in `text`, with its groups; at most `maxMatches` (else TooManyMatches). */
export async function regexMatches(
  regex: RegExp,
  text: string,
  maxMatches: number,
  bounds: Bounds,
): Promise<RegexMatch[]> {
  const reply = await run(
    { kind: "matches", source: regex.source, flags: regex.flags, texts: [text], maxMatches },
    bounds,
  );
  if (reply.tooMany) throw new TooManyMatches(`more than ${maxMatches} matches`);
  return reply.matches as RegexMatch[];
}

interface Job {
  kind: "spans" | "matches" | "test";
  source: string;
  flags: string;
  texts: string[];
  maxMatches?: number;
}

interface Reply {
  spans?: Int32Array[];
  hits?: Uint8Array;
  matches?: RegexMatch[];
  tooMany?: boolean;
  failed?: string;
}

// Two cores on the machines measured: four busy workers already share them; more only add memory.
const maxWorkers = 4;
const maxIdle = 2;
const idle: Worker[] = [];
let live = 0;
const waiting: Array<() => void> = [];

async function run(job: Job, bounds: Bounds): Promise<Reply> {
  const started = Date.now();
  const { worker, bootMs } = await acquire(bounds);
  // The bound is the pattern's: time spent waiting for a busy pool counts, a new thread's start
  // does not (on a loaded 2-core machine it took over a second, and `abc`/`b` was "too slow").
  const left = bounds.timeoutMs - (Date.now() - started - bootMs);
  return new Promise<Reply>((resolve, reject) => {
    let settled = false;
    const finish = (healthy: boolean, settle: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      bounds.signal.removeEventListener("abort", onAbort);
      worker.off("message", onMessage);
      worker.off("error", onError);
      worker.off("exit", onExit);
      release(worker, healthy);
      settle();
    };
    const onMessage = (reply: Reply) =>
      finish(true, () =>
        reply.failed === undefined ? resolve(reply) : reject(new RegexFailed(reply.failed)),
      );
    const onError = (e: Error) => finish(false, () => reject(new RegexFailed(e.message)));
    const onExit = () => finish(false, () => reject(new RegexFailed("the regex worker stopped")));
    const onAbort = () => finish(false, () => reject(new RegexStopped("cancelled")));
    const timer = setTimeout(
      () => finish(false, () => reject(new RegexStopped("timeout"))),
      Math.max(0, left),
    );
    worker.on("message", onMessage);
    worker.on("error", onError);
    worker.on("exit", onExit);
    bounds.signal.addEventListener("abort", onAbort, { once: true });
    if (bounds.signal.aborted) {
      onAbort();
      return;
    }
    // A busy worker keeps the process alive (a one-shot CLI call awaits it); an idle one must not.
    worker.ref();
    worker.postMessage(job);
  });
}

/** How long a new worker thread may take to start before the call fails. */
const bootBoundMs = 30_000;

/** An idle worker, a new one (started: `bootMs`), or — with `maxWorkers` busy — the next one released. */
async function acquire(bounds: Bounds): Promise<{ worker: Worker; bootMs: number }> {
  const until = Date.now() + bounds.timeoutMs;
  for (;;) {
    const ready = idle.pop();
    if (ready) return { worker: ready, bootMs: 0 };
    if (live < maxWorkers) {
      live++;
      const booting = Date.now();
      const worker = new Worker(workerSource, { eval: true, stdout: true, stderr: true });
      worker.unref();
      try {
        await online(worker, bounds.signal);
      } catch (e) {
        live--;
        void worker.terminate();
        throw e;
      }
      return { worker, bootMs: Date.now() - booting };
    }
    if (bounds.signal.aborted) throw new RegexStopped("cancelled");
    if (Date.now() >= until) throw new RegexStopped("busy");
    await new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        bounds.signal.removeEventListener("abort", wake);
        const at = waiting.indexOf(wake);
        if (at >= 0) waiting.splice(at, 1);
        resolve();
      };
      const timer = setTimeout(wake, Math.max(0, until - Date.now()));
      bounds.signal.addEventListener("abort", wake, { once: true });
      waiting.push(wake);
    });
  }
}

/** Resolves when the thread runs; rejects when it fails to start, the call is cancelled, or the bound passes. */
function online(worker: Worker, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const done = (settle: () => void) => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      worker.off("online", onOnline);
      worker.off("error", onError);
      settle();
    };
    const onOnline = () => done(resolve);
    const onError = (e: Error) => done(() => reject(new RegexFailed(e.message)));
    const onAbort = () => done(() => reject(new RegexStopped("cancelled")));
    const timer = setTimeout(
      () =>
        done(() => reject(new RegexFailed(`the regex worker did not start within ${bootBoundMs / 1000} s`))),
      bootBoundMs,
    );
    worker.once("online", onOnline);
    worker.once("error", onError);
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) onAbort();
  });
}

function release(worker: Worker, healthy: boolean): void {
  worker.unref();
  if (healthy && idle.length < maxIdle) {
    idle.push(worker);
  } else {
    live--;
    void worker.terminate();
  }
  waiting[0]?.();
}
