/**
 * Bounded `<command> --version` runs, for finding a server binary that really works (a toolchain
 * manager's proxy may exist and still fail when the server is not installed; the adapters say
 * which) and for `scalpel doctor`. Lives in `lsp/` because only this layer spawns processes.
 */
import { existsSync } from "node:fs";
import { isAbsolute } from "node:path";
import { execa, execaSync } from "execa";

export interface VersionResult {
  ok: boolean;
  /** First non-empty line of stdout (or stderr), trimmed. */
  output: string;
  /** Why it failed: spawn error, exit code, or timeout. */
  error?: string;
}

const DEFAULT_TIMEOUT_MS = 10_000;

function firstLine(...texts: unknown[]): string {
  for (const t of texts) {
    if (typeof t !== "string") continue;
    const line = t.split(/\r?\n/).find((l) => l.trim() !== "");
    if (line) return line.trim();
  }
  return "";
}

interface Outcome {
  exitCode?: number | undefined;
  timedOut?: boolean;
  failed?: boolean;
  code?: string | undefined;
  stdout?: unknown;
  stderr?: unknown;
}

function toResult(r: Outcome, timeoutMs: number): VersionResult {
  const output = firstLine(r.stdout, r.stderr);
  if (r.timedOut) return { ok: false, output, error: `no answer within ${timeoutMs / 1000} s` };
  if (r.code === "ENOENT") return { ok: false, output, error: "not found" };
  if (r.failed || r.exitCode !== 0) {
    return {
      ok: false,
      output,
      error: r.exitCode === undefined ? (r.code ?? "failed") : `exit code ${r.exitCode}`,
    };
  }
  return { ok: true, output };
}

/** `env` is added to scalpel's own environment: an adapter's settings for a quiet version run. */
const runOptions = (timeoutMs: number, env: Readonly<Record<string, string>>) =>
  ({ timeout: timeoutMs, reject: false, stdin: "ignore", all: false, env }) as const;

export async function runVersion(
  command: string,
  args: readonly string[] = ["--version"],
  timeoutMs = DEFAULT_TIMEOUT_MS,
  env: Readonly<Record<string, string>> = {},
): Promise<VersionResult> {
  try {
    return toResult(await execa(command, args, runOptions(timeoutMs, env)), timeoutMs);
  } catch (e) {
    return {
      ok: false,
      output: "",
      error: e instanceof Error ? (e.message.split("\n")[0] ?? "failed") : "failed",
    };
  }
}

/**
 * The synchronous form, for choosing a binary while building a launch spec (a synchronous step).
 * It blocks the event loop for the command's run time (a few ms to tens of ms, measured in the
 * adapters), so `firstRunning` keeps its answer.
 */
export function runVersionSync(
  command: string,
  args: readonly string[] = ["--version"],
  timeoutMs = DEFAULT_TIMEOUT_MS,
  env: Readonly<Record<string, string>> = {},
): VersionResult {
  try {
    return toResult(execaSync(command, args, runOptions(timeoutMs, env)), timeoutMs);
  } catch (e) {
    return {
      ok: false,
      output: "",
      error: e instanceof Error ? (e.message.split("\n")[0] ?? "failed") : "failed",
    };
  }
}

/** A place a server binary may be: a command, and where it came from (`PATH`, an env variable, a folder). */
export interface Candidate {
  command: string;
  from: string;
}

export interface Running extends Candidate {
  /** First line the version command printed. */
  version: string;
}

const firstRunningCache = new Map<string, Running | { tried: string[] }>();

/**
 * The first candidate that answers `<command> <versionArgs>`, or every candidate's failure
 * ("<from>: not found", "<from>: exit code 1") for the caller's "not installed" message. A bare
 * command name is looked up on PATH by running it; a path must exist first (a missing file is
 * not worth a spawn). `env` is added for the runs (as in runVersion). The answer is kept per
 * candidate list, arguments and env: the list is derived from the environment, so a changed
 * `SCALPEL_*` variable asks again, and each launch spec after the first costs nothing.
 */
export function firstRunning(
  candidates: readonly Candidate[],
  versionArgs: readonly string[] = ["--version"],
  env: Readonly<Record<string, string>> = {},
): Running | { tried: string[] } {
  const key = JSON.stringify([candidates, versionArgs, env]);
  const known = firstRunningCache.get(key);
  if (known) return known;
  const tried: string[] = [];
  let result: Running | { tried: string[] } | undefined;
  for (const c of candidates) {
    if ((isAbsolute(c.command) || c.command.includes("/")) && !existsSync(c.command)) {
      tried.push(`${c.from}: not found`);
      continue;
    }
    const v = runVersionSync(c.command, versionArgs, DEFAULT_TIMEOUT_MS, env);
    if (v.ok) {
      result = { command: c.command, from: c.from, version: v.output };
      break;
    }
    tried.push(`${c.from}: ${v.error ?? "failed"}`);
  }
  result ??= { tried };
  firstRunningCache.set(key, result);
  return result;
}
