/**
 * The result every writing tool returns: what was written (or would be), the diff, the diagnostics
 * delta and the leftovers to check. The tools' kit fits it to the budget and renders it.
 */
import { z } from "zod";
import { type Diagnostic, diagnosticLine } from "../diagnostics/diagnostic.js";
import { parsePatches } from "../edits/diff.js";

/** Line numbers listed per file in `lines`. */
const listedLines = 5;

export const fileChangeSchema = z.object({
  relative_path: z.string(),
  added_lines: z.number().int(),
  removed_lines: z.number().int(),
  sites: z
    .number()
    .int()
    .optional()
    .describe("edited ranges in the file; given when the file's diff is not in the answer"),
  lines: z
    .array(z.number().int())
    .optional()
    .describe(
      `with sites: the first lines (1-based, after the edit, at most ${listedLines}) where edited ranges start`,
    ),
});

export const editResultShape = {
  applied: z.boolean().describe("false: nothing was written (a dry run, or verify found new errors)"),
  edit_id: z.string().optional().describe("pass to undo_edit to revert this edit"),
  files: z.array(fileChangeSchema),
  diff: z.string().optional().describe("unified diff of the change"),
  diagnostics_delta: z
    .object({
      new: z
        .array(z.string())
        .describe("one line each: `path:line:column severity [code]: message (in Symbol)`"),
      resolved: z.array(z.string()),
      checked_count: z
        .number()
        .int()
        .describe(
          "how many files were compared: touched files, files referring to the changed symbols, files whose published diagnostics changed (those with findings are named in new and resolved)",
        ),
      complete: z
        .boolean()
        .describe("false when some files in scope were not compared (see incomplete_reason)"),
      incomplete_reason: z.string().optional(),
    })
    .optional()
    .describe(
      "diagnostics that appeared or disappeared because of this edit (before: just before it; after: once the checks it started have run)",
    ),
  possible_missed_sites: z
    .array(
      z.object({
        relative_path: z.string(),
        line: z.number().int().describe("1-based"),
        snippet: z.string().optional(),
      }),
    )
    .optional()
    .describe(
      "rename_symbol: places where the old name is still written as a whole word (in the renamed files, or where the language server cannot see, e.g. macro bodies); check each",
    ),
  verify: z
    .object({
      passed: z
        .boolean()
        .describe("true: the check found no new error, so the edit was written (unless a dry run)"),
      reason: z
        .string()
        .optional()
        .describe("why it did not pass: new errors, or a check that could not finish"),
      errors: z
        .record(z.string(), z.array(z.string()))
        .optional()
        .describe("the new errors by file, one line each: `line:column [code]: message (in Symbol)`"),
    })
    .optional()
    .describe(
      "verify: true: the verdict of the check of the edited files and their users; diagnostics_delta is that check's comparison when it passed",
    ),
  note: z
    .string()
    .optional()
    .describe("set when the change may have effects beyond the files checked: what to call next"),
};

export const editResultSchema = z.object(editResultShape);

/** The delta as an edit answers it: each diagnostic one line (`diagnosticLine`). */
export function deltaAnswer<D extends { new: Diagnostic[]; resolved: Diagnostic[] }>(
  delta: D,
): Omit<D, "new" | "resolved"> & { new: string[]; resolved: string[] } {
  return { ...delta, new: delta.new.map(diagnosticLine), resolved: delta.resolved.map(diagnosticLine) };
}
export type EditResult = z.infer<typeof editResultSchema>;

/** An applied edit's diff is echoed back only up to this size; a dry run always carries it. */
export const appliedDiffMaxChars = 4000;

type FileChange = EditResult["files"][number];

/**
 * Adds `sites` and `lines` to the files whose diff `shownDiff` leaves out (or cuts short), read
 * from the whole diff: an agent still sees where each file changes without the diff's text.
 * `withLines` false: the count of sites only (an applied rename, whose sites are the references).
 */
export function summariseFiles(
  files: FileChange[],
  fullDiff: string,
  shownDiff = "",
  withLines = true,
): FileChange[] {
  const whole = new Map(parsePatches(fullDiff).map((p) => [p.path, p]));
  const shown = new Map(parsePatches(shownDiff).map((p) => [p.path, p.hunks.length]));
  return files.map((f) => {
    const p = whole.get(f.relative_path);
    if (!p || shown.get(f.relative_path) === p.hunks.length) return f;
    return withLines
      ? { ...f, sites: p.sites, lines: p.lines.slice(0, listedLines) }
      : { ...f, sites: p.sites };
  });
}
