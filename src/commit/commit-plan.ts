/**
 * The one path from an edit plan to the disk for tools: read-only check, apply (or preview),
 * journal, tell the language servers, and the diagnostics delta of what happened.
 */
import { randomBytes } from "node:crypto";
import { AppError } from "../core/errors.js";
import { type ChangedSymbol, deltaAfter, snapshotBefore } from "../diagnostics/delta.js";
import { editedSymbols } from "../diagnostics/edited-symbols.js";
import { type ApplyResult, applyPlan, applyRecomputed, planPaths } from "../edits/apply.js";
import { isStaleConflict } from "../edits/file-state.js";
import { journalFiles } from "../edits/journal.js";
import type { EditPlan } from "../edits/plan.js";
import type { CallContext } from "../project/call-context.js";
import { refuseRedactedText } from "../security/secret-gate.js";
import {
  appliedDiffMaxChars,
  deltaAnswer,
  type EditResult,
  fileChangeLine,
  summariseFiles,
} from "./edit-result.js";

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
   * false: an applied edit's diff is not echoed, only where each file changed (its line in files:
   * sites, lines). For edits whose new text the caller sent itself (a symbol's body): measured on rxjs,
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
}

/** Where to look when an edit may have effects beyond the files its delta checked. */
export const projectDiagnosticsNote = "Files not checked may be affected: call get_project_diagnostics.";

/** Tries for a plan with `recompute` (the first one included) before edit_conflict is returned. */
export const commitAttempts = 3;

export async function commitPlan(
  ctx: Pick<CallContext, "project" | "signal" | "log">,
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
  refuseRedactedText(
    plan.flatMap((op) =>
      op.kind === "edit" ? op.edits.map((e) => e.newText) : op.kind === "create" ? [op.content] : [],
    ),
  );
  // Taken before anything is written: the delta compares the compiler's view before and after.
  const snapshot = dryRun
    ? null
    : await snapshotBefore(project, touchedFiles(plan), await changedSymbolsOf(ctx, plan, options));
  let applied: ApplyResult;
  for (let attempt = 1; ; attempt++) {
    // Past the call's deadline the caller was already told `deadline_exceeded`: nothing may be
    // written after that answer.
    if (ctx.signal.aborted && !dryRun) {
      throw new AppError(
        "deadline_exceeded",
        "The call ran out of time before writing; nothing was written. Call it again (a smaller edit, or later).",
      );
    }
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
  const files = applied.files.map(fileChangeLine);
  if (dryRun || !snapshot) return { applied: false, files, diff: applied.diff };
  const result: EditResult = { applied: true, edit_id: newEditId(), files };
  // Awaited: once the caller has an edit_id, undo_edit finds it, also after a restart.
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
  if (applied.written.length > 0) {
    try {
      await project.pool.didWrite(applied.written);
    } catch (e) {
      // The files are written; a server that missed the news re-reads them on its next sync.
      ctx.log.warn("could not notify language servers of written files", e);
    }
    const delta = await deltaAfter(project, snapshot);
    if (delta) result.diagnostics_delta = deltaAnswer(delta);
    if (!delta?.complete || options.wide) result.note = projectDiagnosticsNote;
  }
  return result;
}

/** The symbols the edit changes: as the tool says, else found from where the plan's edits land. */
async function changedSymbolsOf(
  ctx: Pick<CallContext, "project" | "signal">,
  plan: EditPlan,
  options: CommitOptions,
): Promise<{ symbols: ChangedSymbol[]; left?: string }> {
  if (options.changedSymbols) return { symbols: options.changedSymbols() };
  return editedSymbols(ctx.project, plan, ctx.signal);
}

function touchedFiles(plan: EditPlan): Array<{ abs: string; rel: string }> {
  const paths = plan.flatMap((op) => (op.kind === "rename" ? [op.from, op.to] : [op.path]));
  const seen = new Set<string>();
  return paths.filter((p) => !seen.has(p.abs) && seen.add(p.abs)).map((p) => ({ abs: p.abs, rel: p.rel }));
}

function newEditId(): string {
  return `e${randomBytes(4).toString("hex")}`;
}
