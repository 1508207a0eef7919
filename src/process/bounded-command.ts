/**
 * Running a one-shot command (a compiler's whole-project check) under a time bound. It runs like a
 * language server, in its own tracked process group (process.ts), so that a timeout, an abort or
 * scalpel's exit takes the whole tree down — a build tool forks compilers and build scripts, which
 * a kill of the direct child would orphan.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { execaSync } from "execa";
import type { Logger } from "../core/log.js";
import { type LaunchCommand, spawnServer, terminateGroup } from "./spawn.js";

export interface BoundedOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** Output kept per stream; past it the rest is dropped and `outputCut` says so. */
  maxOutputChars?: number;
  /** Each complete stdout line as it arrives (for progress). */
  onLine?: (line: string) => void;
}

export interface BoundedRun {
  /** null when the command was killed or could not start. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  aborted: boolean;
  /** Why it could not start (ENOENT, EACCES). */
  spawnError?: string;
  outputCut: boolean;
}

const defaultMaxOutputChars = 64 * 1024 * 1024;

export async function runBounded(
  launch: LaunchCommand,
  cwd: string,
  opts: BoundedOptions,
  logger: Logger,
): Promise<BoundedRun> {
  const max = opts.maxOutputChars ?? defaultMaxOutputChars;
  const proc = spawnServer(launch, cwd, logger);
  // Nothing is ever sent; an open stdin would keep a command that reads it waiting forever.
  proc.child.stdin?.end();
  const out = { stdout: "", stderr: "", cut: false, partial: "" };
  const keep = (which: "stdout" | "stderr", chunk: string) => {
    const room = max - out[which].length;
    if (chunk.length > room) out.cut = true;
    if (room > 0) out[which] += chunk.length > room ? chunk.slice(0, room) : chunk;
  };
  const drained = new Promise<void>((resolve) => {
    if (!proc.child.stdout) resolve();
    proc.child.stdout?.once("close", () => resolve());
  });
  proc.child.stdout?.setEncoding("utf8");
  proc.child.stdout?.on("data", (chunk: string) => {
    keep("stdout", chunk);
    if (!opts.onLine) return;
    const lines = (out.partial + chunk).split("\n");
    out.partial = lines.pop() ?? "";
    for (const line of lines) opts.onLine(line);
  });
  // spawnServer already logs stderr; this copy is for the caller's error report.
  proc.child.stderr?.on("data", (chunk: string) => keep("stderr", chunk));

  let timedOut = false;
  let aborted = false;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      timedOut = true;
      resolve();
    }, opts.timeoutMs);
    if (opts.signal?.aborted) aborted = true;
    onAbort = () => {
      aborted = true;
      resolve();
    };
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    if (aborted) resolve();
  });
  const exit = await Promise.race([proc.exited, stopped.then(() => null)]);
  clearTimeout(timer);
  // A call's signal outlives its commands (one git run per changed file): each must let go of it.
  if (onAbort) opts.signal?.removeEventListener("abort", onAbort);
  // "exit" can come before the last stdout chunk; a helper that inherited the pipe may hold it open.
  if (exit !== null) await Promise.race([drained, sleep(2_000)]);
  // Always: after a normal exit this reaps whatever the command left behind in its group (a build
  // script's daemon), after a timeout or abort it is the kill.
  if (proc.pid !== undefined) await terminateGroup(proc.pid, 1_000);
  const run: BoundedRun = {
    exitCode: exit?.code ?? null,
    stdout: out.stdout,
    stderr: out.stderr,
    timedOut: exit === null && timedOut,
    aborted: exit === null && aborted,
    outputCut: out.cut,
  };
  if (exit?.spawnError) run.spawnError = exit.spawnError;
  return run;
}

/**
 * The synchronous form, for a step that must answer synchronously (the ignore rules' output
 * folders). It blocks the event loop while the command runs, so it is for short commands that
 * read nothing from stdin; a command past `timeoutMs` is killed. null when it did not exit by
 * itself with status 0.
 */
export function runBoundedSync(launch: LaunchCommand, cwd: string, timeoutMs: number): string | null {
  try {
    const r = execaSync(launch.command, launch.args, {
      cwd,
      env: launch.env ?? {},
      timeout: timeoutMs,
      reject: false,
      stdin: "ignore",
      stderr: "ignore",
      stripFinalNewline: false,
    });
    return r.exitCode === 0 && !r.timedOut ? r.stdout : null;
  } catch {
    return null;
  }
}
