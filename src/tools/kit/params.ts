/** Parameter shapes and small helpers that several tools share. */
import { z } from "zod";
import { defaultMaxAnswerChars } from "./run.js";

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

/** The find-and-replace parameters shared by replace_content and edit_memory. */
export const replaceParams = {
  needle: z.string().min(1).describe("Text (or regex with mode 'regex') to find"),
  replacement: z.string().describe("Replacement text"),
  mode: z.enum(["literal", "regex"]).default("literal"),
  allow_multiple: z.boolean().default(false).describe("Replace every match instead of requiring exactly one"),
};

export const excludeTests = z
  .boolean()
  .default(false)
  .describe("Leave out test files (per language: *.test.*, *.spec.*, test/, tests/, __tests__/ …)");
