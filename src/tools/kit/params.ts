/** Parameter shapes and small helpers that several tools share. */
import { z } from "zod";
import { defaultMaxAnswerChars } from "./run.js";

// The wordings below are each shared parameter's one home: what every session loads with
// tools/list (issue 19: definitions under 16,000 characters for all tools). The manual
// (onboarding/manual.ts, "Parameters many tools share") says the rest once.

/** Every answer's size bound; past it the answer is shortened and says so (truncated, hint, next). */
export const maxAnswerChars = z.number().int().min(100).default(defaultMaxAnswerChars);

/** The paging parameter of every list tool; a shortened answer's `next` names the following offset. */
export const offset = z.number().int().min(0).default(0);

/** A name path of one symbol ('Cart/add'; the manual says the syntax), in the file given as relative_path. */
export const namePath = z.string();

/** The file a symbol is looked up in: the one that defines it (the manual says so once). */
export const definingFile = z.string();

/** Where a symbol query looks: a file or a folder, the whole project by default. */
export const searchScope = z.string().default("");

/**
 * Symbol kinds (the server's instructions name the common ones), checked by `checkKinds`
 * (symbols/kinds.ts), which lists the valid ones.
 */
export const kinds = z.array(z.string()).default([]);

export const completeness = {
  complete: z.boolean().describe("false when the language server could not give a full answer"),
  incomplete_reason: z.string().optional(),
};

/** Writes nothing and returns the diff. */
export const dryRun = z.boolean().default(false);

/**
 * Writes the edit only if the check of its files and their users finds no new error (the manual
 * says the rest: commit/verify.ts).
 */
export const verify = z.boolean().default(false);

/** An applied edit's diff is left out unless asked for (a dry run always has it). */
export const showDiff = z.boolean().default(false);

/** The find-and-replace parameters shared by replace_content and edit_memory. */
export const replaceParams = {
  needle: z.string().min(1),
  replacement: z.string(),
  mode: z.enum(["literal", "regex"]).default("literal"),
  allow_multiple: z.boolean().default(false),
};

/** Leaves out the language's test files (per adapter: *.test.*, *.spec.*, test/, tests/, __tests__/ …). */
export const excludeTests = z.boolean().default(false);
