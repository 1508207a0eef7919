/**
 * Bounded `<command> --version` runs, for finding a server binary that really works (the rustup
 * proxy `~/.cargo/bin/rust-analyzer` exists but fails with "Unknown binary 'rust-analyzer'" when
 * the component is not installed) and for `scalpel doctor`. Lives in `lsp/` because only this layer
 * spawns processes.
 */
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

const runOptions = (timeoutMs: number) =>
  ({ timeout: timeoutMs, reject: false, stdin: "ignore", all: false, env: { RUST_BACKTRACE: "0" } }) as const;

export async function runVersion(
  command: string,
  args: readonly string[] = ["--version"],
  timeoutMs = DEFAULT_TIMEOUT_MS,
): Promise<VersionResult> {
  try {
    return toResult(await execa(command, args, runOptions(timeoutMs)), timeoutMs);
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
 * Callers cache the answer: it blocks the event loop for the command's run time (~5 ms for
 * rust-analyzer 0.0.340, ~20 ms for the failing rustup proxy, measured).
 */
export function runVersionSync(
  command: string,
  args: readonly string[] = ["--version"],
  timeoutMs = DEFAULT_TIMEOUT_MS,
): VersionResult {
  try {
    return toResult(execaSync(command, args, runOptions(timeoutMs)), timeoutMs);
  } catch (e) {
    return {
      ok: false,
      output: "",
      error: e instanceof Error ? (e.message.split("\n")[0] ?? "failed") : "failed",
    };
  }
}
