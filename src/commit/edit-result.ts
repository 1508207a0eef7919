/**
 * The result every writing tool returns: what was written (or would be), the diff, the diagnostics
 * delta and the leftovers to check. The tools' kit fits it to the budget and renders it.
 */
import { z } from "zod";
import { type Diagnostic, diagnosticLines } from "../diagnostics/diagnostic.js";
import type { FileChange as WrittenFile } from "../edits/apply.js";
import { parsePatches } from "../edits/diff.js";

/** Line numbers listed per file in `lines`. */
const listedLines = 5;

/**
 * One file of an edit, one line, the same in the JSON and in the text:
 * `PATH (+ADDED -REMOVED)[ N sites[, at lines L1, L2[, …]]]` — sites (edited ranges) and the lines
 * where the first `listedLines` start (1-based, after the edit) when the file's diff is not in the
 * answer. An object per file repeated its five keys in every entry (a rename of 9 files: 470 of
 * 1,286 characters of JSON).
 */
export const fileChangeSchema = z
  .string()
  .describe(
    "a file: `PATH (+ADDED -REMOVED)`, then, when its diff is not in the answer, `N sites, at lines L1, L2, …` (where edited ranges start)",
  );

/** A file of an edit, its parts spelled out. */
export interface FileChange extends WrittenFile {
  sites?: number;
  lines?: number[];
}

/** The file's line (`fileChangeSchema`). */
export function fileChangeLine(f: FileChange): string {
  const lines = f.lines ?? [];
  const more = f.sites !== undefined && f.sites > lines.length ? ", …" : "";
  const at = lines.length === 0 ? "" : `, at line${lines.length === 1 ? "" : "s"} ${lines.join(", ")}${more}`;
  const where = f.sites === undefined ? "" : ` ${f.sites} site${f.sites === 1 ? "" : "s"}${at}`;
  return `${f.relative_path} (+${f.added_lines} -${f.removed_lines})${where}`;
}

const fileChangePattern = /^(.*) \(\+(\d+) -(\d+)\)(?: (\d+) sites?(?:, at lines? ([\d, ]+?)(?:, …)?)?)?$/;

/** A file's line read back (fileChangeLine's inverse); undefined for a line it did not write. */
export function readFileChange(line: string): FileChange | undefined {
  const m = fileChangePattern.exec(line);
  if (!m) return undefined;
  return {
    relative_path: m[1]!,
    added_lines: Number(m[2]),
    removed_lines: Number(m[3]),
    ...(m[4] !== undefined ? { sites: Number(m[4]) } : {}),
    ...(m[5] !== undefined ? { lines: m[5].split(", ").map(Number) } : {}),
  };
}

export const editResultShape = {
  applied: z.boolean().describe("false: nothing was written (a dry run, or verify found new errors)"),
  edit_id: z.string().optional().describe("pass to undo_edit to revert this edit"),
  files: z.array(fileChangeSchema),
  diff: z.string().optional().describe("unified diff of the change"),
  diagnostics_delta: z
    .object({
      new: z
        .array(z.string())
        .describe(
          "one line each: `path:line:column severity [code]: message (in Symbol)`; the same diagnostic elsewhere follows as ` — also at path:line:column, …`",
        ),
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

/** The delta as an edit answers it: a line per diagnostic, those saying the same in one (`diagnosticLines`). */
export function deltaAnswer<D extends { new: Diagnostic[]; resolved: Diagnostic[] }>(
  delta: D,
): Omit<D, "new" | "resolved"> & { new: string[]; resolved: string[] } {
  return { ...delta, new: diagnosticLines(delta.new), resolved: diagnosticLines(delta.resolved) };
}
export type EditResult = z.infer<typeof editResultSchema>;

/** An applied edit's diff is echoed back only up to this size; a dry run always carries it. */
export const appliedDiffMaxChars = 4000;

/**
 * Adds `sites` and `lines` to the files whose diff `shownDiff` leaves out (or cuts short), read
 * from the whole diff: an agent still sees where each file changes without the diff's text.
 * `withLines` false: the count of sites only (an applied rename, whose sites are the references).
 */
export function summariseFiles(
  files: readonly string[],
  fullDiff: string,
  shownDiff = "",
  withLines = true,
): string[] {
  const whole = new Map(parsePatches(fullDiff).map((p) => [p.path, p]));
  const shown = new Map(parsePatches(shownDiff).map((p) => [p.path, p.hunks.length]));
  return files.map((line) => {
    const f = readFileChange(line);
    const p = f && whole.get(f.relative_path);
    if (!f || !p || shown.get(f.relative_path) === p.hunks.length) return line;
    const sites = withLines ? { sites: p.sites, lines: p.lines.slice(0, listedLines) } : { sites: p.sites };
    return fileChangeLine({ ...f, ...sites });
  });
}
