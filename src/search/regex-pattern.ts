/**
 * A caller's regular expression: its input limit, its compilation, and the one wording of what
 * went wrong while it ran (in the worker of `regex-worker.ts`) for the three tools that take one.
 */

import { regexTimeoutEnv, regexTimeoutMs, secondsText } from "../core/deadlines.js";
import { AppError } from "../core/errors.js";
import { RegexFailed, RegexStopped, TooManyMatches } from "./regex-worker.js";

/** Longer patterns are generated, not written; V8 parses a pattern on the main thread, so it is bounded. */
export const maxPatternChars = 10_000;
/** Matches one replace_content / edit_memory call may replace (each carries its groups). */
export const maxReplaceMatches = 100_000;

/** `param` names the argument in messages ("pattern", "needle"); `literalHint` says what to use instead. */
export function compileUserRegex(source: string, param: string, literalHint: string): RegExp {
  if (source.length > maxPatternChars) {
    throw new AppError(
      "too_large",
      `The ${param} is ${source.length} characters; the limit for a regular expression is ${maxPatternChars} (maximum pattern length). Shorten it, or split the work into several calls.`,
    );
  }
  try {
    return new RegExp(source, "gm");
  } catch (e) {
    throw new AppError(
      "invalid_regex",
      `The ${param} is not a valid JavaScript regular expression: ${(e as Error).message}. ${literalHint}`,
    );
  }
}

/** Bounds of one regex run: the configured time, and the call's own signal (deadline, cancel). */
export function regexBounds(signal: AbortSignal): { timeoutMs: number; signal: AbortSignal } {
  return { timeoutMs: regexTimeoutMs(), signal };
}

/** Why a slow pattern is slow and what to write instead: said the same way by every tool. */
export function tooSlowAdvice(): string {
  return `Nested or overlapping quantifiers such as (a+)+, (.*)* or (\\w|\\d)+ backtrack exponentially on long lines. Simplify the pattern (a+ instead of (a+)+, [^"]* instead of .*), anchor it, or narrow the files searched; the bound is ${regexTimeoutEnv} (seconds).`;
}

/** Turns a failure of a regex run on `where` (a file, a memory) into the caller's error. */
export function regexRunError(e: unknown, where: string, param: string): unknown {
  if (e instanceof RegexStopped) {
    if (e.why === "busy") {
      return new AppError(
        "deadline_exceeded",
        `Every regex worker stayed busy with other calls' patterns for ${secondsText(regexTimeoutMs())}, so the ${param} did not run on ${where}; nothing was changed. Call again.`,
      );
    }
    if (e.why === "cancelled") {
      return new AppError(
        "deadline_exceeded",
        `The call was cancelled (or reached its deadline) while the ${param} ran on ${where}; nothing was changed.`,
      );
    }
    return new AppError(
      "pattern_too_slow",
      `The ${param} ran longer than ${secondsText(regexTimeoutMs())} on ${where} and was stopped; nothing was changed. ${tooSlowAdvice()}`,
    );
  }
  if (e instanceof TooManyMatches) {
    return new AppError(
      "too_large",
      `The ${param} matches more than ${maxReplaceMatches} times in ${where}; the limit is ${maxReplaceMatches} replacements per call (maximum matches). Narrow the ${param}.`,
    );
  }
  if (e instanceof RegexFailed) {
    return new AppError(
      "invalid_regex",
      `The ${param} failed while matching on ${where}: ${e.message}. Simplify the pattern.`,
    );
  }
  return e;
}
