/** Parameter shapes and small helpers that several tools share. */
import { z } from "zod";
import { defaultMaxAnswerChars } from "./run-tool.js";

export const maxAnswerChars = z
  .number()
  .int()
  .min(100)
  .default(defaultMaxAnswerChars)
  .describe("Upper bound on the answer's size in characters; over it the result is shortened and says so.");

/**
 * The paging parameter of every list tool, one shape for all: `what` names the items skipped
 * ("references", "matching lines", ...). The wrapper's `next` call names the following offset.
 */
export function offsetParam(what: string) {
  return z
    .number()
    .int()
    .min(0)
    .default(0)
    .describe(`Skip this many ${what} of the whole answer; a shortened answer names the next offset in next`);
}

export const completeness = {
  complete: z.boolean().describe("false when the language server could not give a full answer"),
  incomplete_reason: z.string().optional(),
};

export const dryRun = z
  .boolean()
  .default(false)
  .describe("true: write nothing and return the unified diff that would be applied");

/** `line` with `context` lines around it, each prefixed with its 1-based number. */
export function snippet(lines: readonly string[], line0: number, context: number): string {
  const from = Math.max(0, line0 - context);
  const to = Math.min(lines.length - 1, line0 + context);
  const width = String(to + 1).length;
  const out: string[] = [];
  for (let l = from; l <= to; l++) out.push(`${String(l + 1).padStart(width)}: ${lines[l] ?? ""}`);
  return out.join("\n");
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/**
 * `complete` for an answer from a session: false while the server still loads the project or is
 * unhealthy (the session decides, `answerGap`).
 */
export function completenessOf(session: { answerGap(): string | undefined }): {
  complete: boolean;
  incomplete_reason?: string;
} {
  const gap = session.answerGap();
  return gap === undefined ? { complete: true } : { complete: false, incomplete_reason: gap };
}

/** The find-and-replace parameters shared by replace_content and edit_memory. */
export const replaceParams = {
  needle: z.string().min(1).describe("Text (or regex with mode 'regex') to find"),
  replacement: z.string().describe("Replacement text"),
  mode: z.enum(["literal", "regex"]).default("literal"),
  allow_multiple: z.boolean().default(false).describe("Replace every match instead of requiring exactly one"),
};
