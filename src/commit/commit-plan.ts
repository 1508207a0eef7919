/**
 * The one path from an edit plan to the disk for tools: read-only check, apply (or preview),
 * journal, tell the language servers, and the diagnostics delta of what happened. With `verify`
 * the check comes before the edit is kept (commit/verify.ts).
 */
import { AppError } from "../core/errors.js";
import { deltaAfter, snapshotBefore } from "../diagnostics/delta.js";
import { type ApplyResult, applyPlan, applyRecomputed, planPaths } from "../edits/apply.js";
import { isStaleConflict } from "../edits/file-state.js";
import type { EditPlan } from "../edits/plan.js";
import type { CallContext } from "../project/call-context.js";
import { refuseRedactedText } from "../security/secret-gate.js";
import {
  type CommitOptions,
  changedSymbolsOf,
  commitAttempts,
  notifyWritten,
  outOfTime,
  projectDiagnosticsNote,
  recordApplied,
  touchedFiles,
} from "./commit-steps.js";
import { deltaAnswer, type EditResult, fileChangeLine } from "./edit-result.js";
import { commitVerified } from "./verify.js";

export type { CommitOptions } from "./commit-steps.js";

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
  if (options.verify) return commitVerified(ctx, plan, dryRun, options);
  // Taken before anything is written: the delta compares the compiler's view before and after.
  const snapshot = dryRun
    ? null
    : await snapshotBefore(project, touchedFiles(plan), await changedSymbolsOf(ctx, plan, options));
  let applied: ApplyResult;
  for (let attempt = 1; ; attempt++) {
    if (ctx.signal.aborted && !dryRun) throw outOfTime();
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
  if (dryRun || !snapshot)
    return { applied: false, files: applied.files.map(fileChangeLine), diff: applied.diff };
  const result = await recordApplied(ctx, applied, options);
  if (applied.written.length > 0) {
    await notifyWritten(ctx, applied.written);
    const delta = await deltaAfter(project, snapshot);
    if (delta) result.diagnostics_delta = deltaAnswer(delta);
    if (!delta?.complete || options.wide) result.note = projectDiagnosticsNote;
  }
  return result;
}
