/**
 * The result every writing tool returns, and the one path from an edit plan to the disk for tools:
 * read-only check, apply (or preview), tell the language servers, describe what happened.
 */
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { type ApplyResult, applyPlan, applyRecomputed, isStaleConflict, planPaths } from "../edits/apply.js";
import { journalFiles } from "../edits/journal.js";
import type { EditPlan } from "../edits/plan.js";
import { AppError } from "../errors.js";
import { plural } from "./common.js";
import { type Diagnostic, diagnosticSchema } from "./diagnostic.js";
import { type ChangedSymbol, deltaAfter, snapshotBefore } from "./diagnostics-delta.js";
import type { Answer } from "./envelope.js";
import type { ToolContext } from "./tool.js";

export const fileChangeSchema = z.object({
  relative_path: z.string(),
  added_lines: z.number().int(),
  removed_lines: z.number().int(),
});

export const editResultShape = {
  applied: z.boolean().describe("false for a dry run: nothing was written"),
  edit_id: z.string().optional().describe("pass to undo_edit to revert this edit"),
  files: z.array(fileChangeSchema),
  diff: z.string().optional().describe("unified diff of the change"),
  diagnostics_delta: z
    .object({
      new: z.array(diagnosticSchema),
      resolved: z.array(diagnosticSchema),
      checked_files: z
        .array(z.string())
        .describe(
          "the files compared (the first 30): touched files, files referring to the changed symbols, files whose published diagnostics changed",
        ),
      checked_count: z.number().int().describe("how many files were compared"),
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
  note: z
    .string()
    .optional()
    .describe("set when the change may have effects beyond the files checked: what to call next"),
};

export const editResultSchema = z.object(editResultShape);
export type EditResult = Answer<typeof editResultShape>;

/** An applied edit's diff is echoed back only up to this size; a dry run always carries it. */
export const appliedDiffMaxChars = 4000;

/** Diagnostics kept per list of diagnostics_delta when the answer is over its budget. */
const shrunkDeltaItems = 20;

/** Budget steps for writing tools: the diff, then a broken build's flood of new diagnostics. */
export const editResultShrink: Array<(r: EditResult) => EditResult> = [
  (r) => {
    const { diff: _diff, ...rest } = r;
    return rest;
  },
  (r) =>
    r.diagnostics_delta
      ? {
          ...r,
          diagnostics_delta: {
            ...r.diagnostics_delta,
            new: r.diagnostics_delta.new.slice(0, shrunkDeltaItems),
            resolved: r.diagnostics_delta.resolved.slice(0, shrunkDeltaItems),
          },
          hint: `The diff and all but the first ${shrunkDeltaItems} diagnostics of each kind were left out because the answer is large; call get_diagnostics_for_file on the touched files for the full list, or read the changed lines with read_file.`,
        }
      : r,
];

export const editNarrowHint =
  "The diff was left out because it is large; run with dry_run on a smaller change, or read the changed lines with read_file.";

/** What every writing tool declares about its answer: its fields and how to fit it in the budget. */
export const editOutput = {
  output: editResultShape,
  shrink: editResultShrink,
  narrowHint: editNarrowHint,
  keepWhole: ["files"],
};

export interface CommitOptions {
  /** The tool making the edit, for the journal. */
  tool?: string;
  /** Set when this edit reverses an earlier one (undo_edit). */
  reverses?: string;
  /**
   * Builds the plan again from the files' current text. When given, an edit whose file changed
   * between reading and writing (another edit landed first) is recomputed on the new text, up to
   * `commitAttempts` times in all, instead of failing with edit_conflict.
   */
  recompute?: () => Promise<EditPlan>;
  /** The symbols the edit changes, as the server knew them before: their referencing files join the delta. */
  changedSymbols?: () => ChangedSymbol[];
  /** The edit may change files' errors beyond any reference list (a rename). */
  wide?: boolean;
}

/** Where to look when an edit may have effects beyond the files its delta checked. */
export const projectDiagnosticsNote =
  "This change may affect files beyond those checked; call get_project_diagnostics to see the errors of the whole project.";

/** Tries for a plan with `recompute` (the first one included) before edit_conflict is returned. */
export const commitAttempts = 3;

export async function commitPlan(
  ctx: ToolContext,
  plan: EditPlan,
  dryRun: boolean,
  options: CommitOptions = {},
): Promise<EditResult> {
  const project = ctx.project;
  if (project.readOnly && !dryRun) {
    throw new AppError(
      "read_only",
      "The project is in read-only mode, so nothing can be written. Use dry_run: true to preview the change.",
    );
  }
  // Taken before anything is written: the delta compares the compiler's view before and after.
  const snapshot = dryRun
    ? null
    : await snapshotBefore(project, touchedFiles(plan), options.changedSymbols?.() ?? []);
  let applied: ApplyResult;
  for (let attempt = 1; ; attempt++) {
    try {
      if (attempt === 1 || !options.recompute) {
        // Optimistic: computed without holding any lock, checked against the disk under it.
        applied = await applyPlan(plan, { dryRun });
      } else {
        // Lost a race: compute again while holding the files, so this try cannot go stale
        // (unless another process writes them).
        ({ plan, result: applied } = await applyRecomputed(planPaths(plan), options.recompute, { dryRun }));
      }
      break;
    } catch (e) {
      if (!options.recompute || !isStaleConflict(e) || attempt >= commitAttempts) throw e;
      ctx.log.debug(
        `a file changed under ${options.tool ?? "an edit"}; recomputing (attempt ${attempt + 1})`,
      );
    }
  }
  const files = applied.files;
  if (dryRun || !snapshot) return { applied: false, files, diff: applied.diff };
  const result: EditResult = { applied: true, edit_id: newEditId(), files };
  // Awaited: once the caller has an edit_id, undo_edit finds it, also after a restart.
  await project.journal.record({
    id: result.edit_id!,
    tool: options.tool ?? "edit",
    files: journalFiles(project.sandbox, applied.before, applied.after),
    ...(options.reverses ? { reverses: options.reverses } : {}),
  });
  if (applied.diff !== "" && applied.diff.length <= appliedDiffMaxChars) result.diff = applied.diff;
  if (applied.written.length > 0) {
    try {
      await project.notifyWritten(applied.written);
    } catch (e) {
      // The files are written; a server that missed the news re-reads them on its next sync.
      ctx.log.warn("could not notify language servers of written files", e);
    }
    const delta = await deltaAfter(project, snapshot);
    if (delta) result.diagnostics_delta = delta;
    if (!delta?.complete || options.wide) result.note = projectDiagnosticsNote;
  }
  return result;
}

function touchedFiles(plan: EditPlan): Array<{ abs: string; rel: string }> {
  const paths = plan.flatMap((op) => (op.kind === "rename" ? [op.from, op.to] : [op.path]));
  const seen = new Set<string>();
  return paths.filter((p) => !seen.has(p.abs) && seen.add(p.abs)).map((p) => ({ abs: p.abs, rel: p.rel }));
}

function newEditId(): string {
  return `e${randomBytes(4).toString("hex")}`;
}

export function renderEditResult(r: EditResult): string {
  const out: string[] = [];
  const count = plural(r.files.length, "file");
  if (!r.applied) out.push(`Dry run: nothing was written. The edit would change ${count}:`);
  else if (r.files.length === 0) out.push("Applied; no file content changed.");
  else out.push(`Applied edit ${r.edit_id ?? ""} to ${count}:`.replace("  ", " "));
  for (const f of r.files) out.push(`  ${f.relative_path} (+${f.added_lines} -${f.removed_lines})`);
  if (r.diff) out.push("", r.diff.trimEnd());
  const delta = r.diagnostics_delta;
  if (delta) {
    if (delta.new.length === 0 && delta.resolved.length === 0) out.push("", "Diagnostics: no change.");
    if (delta.new.length > 0) {
      out.push("", `New diagnostics (${delta.new.length}):`);
      for (const d of delta.new) out.push(`  ${renderDiagnostic(d)}`);
    }
    if (delta.resolved.length > 0) out.push("", `Resolved diagnostics: ${delta.resolved.length}`);
    const more = delta.checked_count - delta.checked_files.length;
    out.push(
      `Checked ${delta.checked_count}: ${delta.checked_files.join(", ")}${more > 0 ? `, and ${more} more` : ""}`,
    );
    if (!delta.complete)
      out.push(`Delta incomplete: ${delta.incomplete_reason ?? "some files were not checked"}`);
  }
  if (r.possible_missed_sites && r.possible_missed_sites.length > 0) {
    out.push(
      "",
      `Possible missed sites (${r.possible_missed_sites.length}): the old name is still written here:`,
    );
    for (const m of r.possible_missed_sites) {
      out.push(`  ${m.relative_path}:${m.line}${m.snippet ? `  ${m.snippet}` : ""}`);
    }
  }
  if (r.note) out.push("", r.note);
  return out.join("\n");
}

function renderDiagnostic(d: Diagnostic): string {
  const code = d.code ? ` [${d.code}]` : "";
  const sym = d.symbol ? ` (in ${d.symbol})` : "";
  const where = d.relative_path ? `${d.relative_path}:` : "";
  return `${where}${d.line}:${d.column} ${d.severity}${code}: ${d.message}${sym}`;
}
