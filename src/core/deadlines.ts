/**
 * The time bounds of a tool call, in one place: how long any call may run (the wrapper's deadline)
 * and how long a caller's regular expression may run on one text. Both can be changed through the
 * environment, read at each call so that a test or a host sets them per process.
 */
import { AppError } from "./errors.js";

/**
 * Longer than every wait a tool does by itself (a cold language server: initialize 60 s, readiness
 * up to 120 s, then the request), so the deadline only cuts calls that would otherwise never end.
 */
const defaultToolSeconds = 240;
/**
 * A linear regex over the largest searchable file (4 MiB) takes milliseconds. `(a+)+$` on a line of
 * `a`s ending in `!` takes 0.17 s for 20 `a`s, 2.2 s for 24 and 9.8 s for 26 (Node 20, this
 * machine): ten seconds on one text means catastrophic backtracking, not a big file.
 */
const defaultRegexSeconds = 10;

export const toolTimeoutEnv = "SCALPEL_TOOL_TIMEOUT";
export const regexTimeoutEnv = "SCALPEL_REGEX_TIMEOUT";

/** A longer timer fires at once (Node clamps it to 1 ms): about 24 days is "no bound" enough. */
const maxTimerSeconds = (2 ** 31 - 1) / 1000;

/** Seconds from the environment (decimals allowed); a missing or unusable value gives the default. */
function seconds(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const value = Number(raw);
  return Number.isFinite(value) && value > 0 ? Math.min(value, maxTimerSeconds) : fallback;
}

/**
 * A tool's deadline in milliseconds: `SCALPEL_TOOL_TIMEOUT` when set (for every tool), else the
 * tool's own longer bound (a project-wide compiler check) or the default.
 */
export function toolDeadlineMs(toolSeconds?: number): number {
  const fromEnv = seconds(toolTimeoutEnv, Number.NaN);
  if (!Number.isNaN(fromEnv)) return fromEnv * 1000;
  return Math.max(defaultToolSeconds, toolSeconds ?? 0) * 1000;
}

/** How long one regular expression may run on one text (or one batch of small files). */
export function regexTimeoutMs(): number {
  return seconds(regexTimeoutEnv, defaultRegexSeconds) * 1000;
}

/** "10 s", "0.5 s": a bound as the messages say it. */
export function secondsText(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/** What the deadline needs to know of a tool (a subset of ToolDef). */
export interface DeadlineTool {
  name: string;
  /** The tool's own bound when its work can take longer than the default (a compiler check). */
  deadlineSeconds?: number;
  annotations: { readOnlyHint: boolean };
}

/**
 * Runs one call under its tool's deadline. Past it, the call's signal is aborted (language server
 * requests are cancelled, a regex worker is terminated, scans stop) and the caller gets
 * `deadline_exceeded` at once, whatever the work still does: the server stays responsive. CPU-bound
 * work cannot be interrupted this way — a Promise.race does not stop synchronous code — which is
 * why regular expressions run in a worker and diffs carry their own time bound.
 */
export async function withDeadline<T>(
  tool: DeadlineTool,
  outer: AbortSignal | undefined,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const ms = toolDeadlineMs(tool.deadlineSeconds);
  const controller = new AbortController();
  const signal = outer ? AbortSignal.any([outer, controller.signal]) : controller.signal;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new AppError("deadline_exceeded", deadlineMessage(tool, ms)));
    }, ms);
  });
  const running = work(signal);
  // Past the deadline its outcome has no one to go to.
  running.catch(() => {});
  try {
    return await Promise.race([running, expired]);
  } finally {
    clearTimeout(timer);
  }
}

function deadlineMessage(tool: DeadlineTool, ms: number): string {
  const then = tool.annotations.readOnlyHint
    ? "Narrow the request (a deeper relative_path, a more specific pattern or name) or call it again once the language server is ready (get_current_config shows its state)."
    : "An edit that had already started writing completes all-or-nothing: read the file to see whether it landed (undo_edit reverts it).";
  return `${tool.name} did not finish within ${secondsText(ms)} (its deadline; ${toolTimeoutEnv} sets it in seconds) and was cancelled. ${then}`;
}
