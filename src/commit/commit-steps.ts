/**
 * The steps every commit shares, verified or not: the options a tool passes, the files and symbols
 * an edit's check covers, the journal entry and the answer of an applied edit, and the news of
 * written files for the language servers.
 */
import { randomBytes } from "node:crypto";
import { AppError } from "../core/errors.js";
import type { ChangedSymbol } from "../diagnostics/delta.js";
import { editedSymbols } from "../diagnostics/edited-symbols.js";
import type { ApplyResult } from "../edits/apply.js";
import { journalFiles } from "../edits/journal.js";
import type { EditPlan } from "../edits/plan.js";
import type { CallContext } from "../project/call-context.js";
import { appliedDiffMaxChars, type EditResult, fileChangeLine, summariseFiles } from "./edit-result.js";

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
  /**
   * The symbols the edit changes, as the server knew them before: their referencing files join the
   * delta. Absent: found from where the plan's text edits land (diagnostics/edited-symbols.ts).
   */
  changedSymbols?: () => ChangedSymbol[];
  /** The edit may change files' errors beyond any reference list (a rename). */
  wide?: boolean;
  /**
   * false: an applied edit's diff is not echoed, only where each file changed (files[].sites,
   * lines). For edits whose new text the caller sent itself (a symbol's body): measured on rxjs,
   * replace_symbol_body's echo was 546 of 3,017 characters and told the agent only what it wrote.
   * A dry run always shows the diff.
   */
  echoDiff?: boolean;
  /**
   * false: a file whose diff is not echoed gets its count of sites, not their lines. For a rename:
   * its sites are the symbol's references, and listing their lines doubled the answer (date-fns
   * `constructFrom`: 7.0k characters against 4.3k).
   */
  siteLines?: boolean;
  /**
   * Write the edit only if the check of the files it touches and of their users finds no error
   * the same check did not find before (commit/verify.ts); otherwise write nothing and say why.
   */
  verify?: boolean;
}

/** Where to look when an edit may have effects beyond the files its delta checked. */
export const projectDiagnosticsNote = "Files not checked may be affected: call get_project_diagnostics.";

/** Tries for a plan with `recompute` (the first one included) before edit_conflict is returned. */
export const commitAttempts = 3;

/** The symbols the edit changes: as the tool says, else found from where the plan's edits land. */
export async function changedSymbolsOf(
  ctx: Pick<CallContext, "project" | "signal">,
  plan: EditPlan,
  options: CommitOptions,
): Promise<{ symbols: ChangedSymbol[]; left?: string }> {
  if (options.changedSymbols) return { symbols: options.changedSymbols() };
  return editedSymbols(ctx.project, plan, ctx.signal);
}

export function touchedFiles(plan: EditPlan): Array<{ abs: string; rel: string }> {
  const paths = plan.flatMap((op) => (op.kind === "rename" ? [op.from, op.to] : [op.path]));
  const seen = new Set<string>();
  return paths.filter((p) => !seen.has(p.abs) && seen.add(p.abs)).map((p) => ({ abs: p.abs, rel: p.rel }));
}

/**
 * An applied edit's journal entry and answer (its id, files, and the diff when it is echoed).
 * Awaited: once the caller has an edit_id, undo_edit finds it, also after a restart.
 */
export async function recordApplied(
  ctx: Pick<CallContext, "project">,
  applied: ApplyResult,
  options: CommitOptions,
): Promise<EditResult> {
  const project = ctx.project;
  const files = applied.files.map(fileChangeLine);
  const result: EditResult = { applied: true, edit_id: newEditId(), files };
  await project.journal.record({
    id: result.edit_id!,
    tool: options.tool ?? "edit",
    files: journalFiles(project.sandbox, applied.before, applied.after),
    ...(options.reverses ? { reverses: options.reverses } : {}),
  });
  if (applied.diff !== "" && options.echoDiff !== false && applied.diff.length <= appliedDiffMaxChars)
    result.diff = applied.diff;
  // A long diff is not echoed; where each file changed still is.
  else if (applied.diff !== "")
    result.files = summariseFiles(files, applied.diff, "", options.siteLines !== false);
  return result;
}

/** Tells the language servers what was written; a server that missed it re-reads on its next sync. */
export async function notifyWritten(
  ctx: Pick<CallContext, "project" | "log">,
  written: string[],
): Promise<void> {
  if (written.length === 0) return;
  try {
    await ctx.project.pool.didWrite(written);
  } catch (e) {
    ctx.log.warn("could not notify language servers of written files", e);
  }
}

/**
 * Past the call's deadline the caller was already told `deadline_exceeded`: nothing may be written
 * after that answer.
 */
export function outOfTime(): AppError {
  return new AppError(
    "deadline_exceeded",
    "The call ran out of time before writing; nothing was written. Call it again (a smaller edit, or later).",
  );
}

function newEditId(): string {
  return `e${randomBytes(4).toString("hex")}`;
}
