/**
 * `verify: true`: an edit is kept only if the check of the files it touches and of the files that
 * use what it changes (the diagnostics delta's scope, diagnostics/delta.ts) finds no error that the
 * same check did not find just before. Otherwise the disk stays byte for byte as it was, no journal
 * entry is made, and the answer names the new errors by file. A check that cannot finish (a file
 * left out at the bound, a server not ready, a checker still running at its bound) keeps nothing
 * either, and says why.
 *
 * Two means, chosen per edit from the servers of the files it changes (ServerSpec.checksUnsaved):
 * - overlays: the servers are shown the new text as unsaved buffers, asked, and shown the disk
 *   again; then exactly the checked bytes are written. Nothing touches the disk before the verdict.
 *   For servers whose checks of every file see the open buffers (tsserver, TypeScript 7), and edits
 *   of existing files only (a file that does not exist yet cannot be overlaid).
 * - write, check, restore: the edit is written, checked on the disk, and a refused edit's old
 *   bytes are put back (and the folders it made removed). For checkers that read only the disk
 *   (cargo check), and for edits that create, delete or move files.
 * Both run under the locks of every file of the plan: no other scalpel write comes between the
 * check and the write, or the write and the restore. The check's comparison is the edit's
 * diagnostics_delta: nothing is checked twice.
 */
import { rmdir } from "node:fs/promises";
import { AppError } from "../core/errors.js";
import { plural } from "../core/words.js";
import {
  type DiagnosticsDelta,
  type DiagnosticsSnapshot,
  deltaAfter,
  snapshotBefore,
  verifyFileLimit,
} from "../diagnostics/delta.js";
import { diagnosticLine } from "../diagnostics/diagnostic.js";
import { type ApplyResult, applyPlan, type HeldApply, planPaths, withPlanLocks } from "../edits/apply.js";
import { isStaleConflict } from "../edits/file-state.js";
import type { EditPlan } from "../edits/plan.js";
import type { LspSession } from "../lsp/session.js";
import type { CallContext } from "../project/call-context.js";
import type { Project } from "../project/project.js";
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
import { deltaAnswer, type EditResult, fileChangeLine, summariseFiles } from "./edit-result.js";

type Ctx = Pick<CallContext, "project" | "signal" | "log">;
type Verdict = NonNullable<EditResult["verify"]>;

export async function commitVerified(
  ctx: Ctx,
  plan: EditPlan,
  dryRun: boolean,
  options: CommitOptions,
): Promise<EditResult> {
  const snapshot = await snapshotBefore(
    ctx.project,
    touchedFiles(plan),
    await changedSymbolsOf(ctx, plan, options),
    { fileLimit: verifyFileLimit, wholeOrNothing: true },
  );
  // Files in scope that the check cannot see now (past the bound, no server ready): no proof.
  const blind = uncovered(snapshot);
  if (blind) return unwritten(await applyPlan(plan, { dryRun: true }), dryRun, blind, undefined);
  for (let attempt = 1; ; attempt++) {
    if (ctx.signal.aborted && !dryRun) throw outOfTime();
    try {
      return await withPlanLocks(planPaths(plan), async (apply) => {
        // A retry computes the edit again while holding its files: it cannot go stale meanwhile.
        if (attempt > 1 && options.recompute) plan = await options.recompute();
        const preview = await apply(plan, { dryRun: true });
        const check = { ctx, apply, plan, preview, snapshot, dryRun, options };
        const groups = overlayGroups(ctx.project, preview);
        return groups ? await checkOverlaid(check, groups) : await checkWritten(check);
      });
    } catch (e) {
      if (!options.recompute || !isStaleConflict(e) || attempt >= commitAttempts) throw e;
      ctx.log.debug(
        `a file changed under ${options.tool ?? "an edit"}; recomputing (attempt ${attempt + 1})`,
      );
    }
  }
}

interface Check {
  ctx: Ctx;
  apply: HeldApply;
  plan: EditPlan;
  /** The plan run in memory under the locks: what the check is about. */
  preview: ApplyResult;
  snapshot: DiagnosticsSnapshot;
  dryRun: boolean;
  options: CommitOptions;
}

type OverlayGroups = Array<[LspSession, Array<{ abs: string; text: string }>]>;

/**
 * The new texts per server when every server of a changed file checks unsaved text and no file is
 * created or deleted; null when the edit must be written to be checked.
 */
function overlayGroups(project: Project, preview: ApplyResult): OverlayGroups | null {
  const groups = new Map<LspSession, Array<{ abs: string; text: string }>>();
  for (const [abs, text] of preview.texts) {
    if (text === null || preview.before.get(abs) === null) return null;
    // No server checks the file (a README): nothing to show anyone.
    if (project.pool.adapterForPath(abs) === null) continue;
    let session: LspSession;
    try {
      session = project.pool.sessionFor(abs).session;
    } catch {
      return null;
    }
    if (!session.spec.checksUnsaved) return null;
    groups.set(session, [...(groups.get(session) ?? []), { abs, text }]);
  }
  return [...groups];
}

function overlaid<T>(groups: OverlayGroups, fn: () => Promise<T>): Promise<T> {
  const [first, ...rest] = groups;
  return first ? first[0].withOverlays(first[1], () => overlaid(rest, fn)) : fn();
}

async function checkOverlaid(c: Check, groups: OverlayGroups): Promise<EditResult> {
  const delta = await overlaid(groups, () => deltaAfter(c.ctx.project, c.snapshot, c.preview.texts));
  const verdict = judge(delta, c.snapshot);
  if (!verdict.passed || c.dryRun) return unwritten(c.preview, c.dryRun, verdict, delta);
  if (c.ctx.signal.aborted) throw outOfTime();
  // The bytes checked, or nothing: another process may have changed a file since the preview.
  const applied = await c.apply(c.plan, { dryRun: false, expectAfter: c.preview.after });
  const result = await recordApplied(c.ctx, applied, c.options);
  await notifyWritten(c.ctx, applied.written);
  return kept(result, delta, verdict, c.options);
}

/** The reason a read-only project's dry run cannot be checked on a server that reads the disk. */
const readOnlyNoCheck =
  "this edit is checked by writing it and putting the old bytes back (its server checks only what is on disk, or the edit creates, deletes or moves files), and the project is read-only";

async function checkWritten(c: Check): Promise<EditResult> {
  // commitPlan refused every write to a read-only project but a dry run's.
  if (c.ctx.project.readOnly)
    return unwritten(c.preview, c.dryRun, { passed: false, reason: readOnlyNoCheck }, undefined);
  if (c.ctx.signal.aborted) throw outOfTime();
  const applied = await c.apply(c.plan, { dryRun: false });
  let delta: DiagnosticsDelta | undefined;
  try {
    await notifyWritten(c.ctx, applied.written);
    delta = await deltaAfter(c.ctx.project, c.snapshot);
  } catch (e) {
    await restore(c, applied);
    throw e;
  }
  // Past the deadline the caller was told nothing was written.
  const verdict = c.ctx.signal.aborted
    ? { passed: false, reason: "the call ran out of time during the check" }
    : judge(delta, c.snapshot);
  if (verdict.passed && !c.dryRun) {
    const result = await recordApplied(c.ctx, applied, c.options);
    return kept(result, delta, verdict, c.options);
  }
  await restore(c, applied);
  return unwritten(c.preview, c.dryRun, verdict, delta);
}

/** Puts back the bytes `applied` replaced, removes the folders it made, and tells the servers. */
async function restore(c: Check, applied: ApplyResult): Promise<void> {
  const paths = new Map(planPaths(c.plan).map((p) => [p.abs, p]));
  const plan: EditPlan = [...applied.before].flatMap(([abs, bytes]) => {
    const path = paths.get(abs);
    return path ? [{ kind: "restore" as const, path, bytes, expected: applied.after.get(abs) ?? null }] : [];
  });
  let back: ApplyResult;
  try {
    back = await c.apply(plan, { dryRun: false });
  } catch (e) {
    // Only another process can have changed the files meanwhile (scalpel's writers wait for the
    // locks): the edit stays on disk, and the journal knows it so that undo_edit can take it back.
    const recorded = await recordApplied(c.ctx, applied, c.options);
    throw new AppError(
      "edit_conflict",
      `The edit was written to be checked and its old text could not be put back (${e instanceof Error ? e.message : String(e)}). It is on disk as edit ${recorded.edit_id}: undo_edit reverts it.`,
    );
  }
  for (const dir of [...applied.createdDirs].sort((a, b) => b.length - a.length))
    await rmdir(dir).catch(() => {});
  await notifyWritten(c.ctx, back.written);
}

/** The refusal when the snapshot could not see every file in scope (past the bound, no server ready). */
function uncovered(snap: DiagnosticsSnapshot): Verdict | undefined {
  if (snap.skipped === 0 && snap.reasons.length === 0) return undefined;
  const why = snap.reasons.slice(0, 3).join("; ") || `${plural(snap.skipped, "file")} could not be checked`;
  return { passed: false, reason: `the check could not finish: ${why}` };
}

/** New errors, or a check that did not cover everything, refuse the edit. */
function judge(delta: DiagnosticsDelta | undefined, snap: DiagnosticsSnapshot): Verdict {
  const blind = uncovered(snap);
  if (blind) return blind;
  // No file in scope has a language server (a README): there is nothing to check.
  if (!delta)
    return snap.files.length === 0 ? { passed: true } : { passed: false, reason: "no file could be checked" };
  const errors = delta.new.filter((d) => d.severity === "error");
  if (errors.length > 0) {
    const byFile: Record<string, string[]> = {};
    for (const { relative_path: file = "", ...d } of errors)
      byFile[file] = [...(byFile[file] ?? []), diagnosticLine(d)];
    return {
      passed: false,
      reason: `${plural(errors.length, "new error")} in ${plural(Object.keys(byFile).length, "file")}`,
      errors: byFile,
    };
  }
  if (!delta.complete)
    return {
      passed: false,
      reason: `the check could not finish: ${delta.incomplete_reason ?? "some files were not checked"}`,
    };
  return { passed: true };
}

/** A refused edit, or a dry run: the files it would change (a dry run: its diff) and the verdict. */
function unwritten(
  preview: ApplyResult,
  dryRun: boolean,
  verdict: Verdict,
  delta: DiagnosticsDelta | undefined,
): EditResult {
  const files = preview.files.map(fileChangeLine);
  const { diff } = preview;
  const result: EditResult = dryRun
    ? { applied: false, files, diff, verify: verdict }
    : { applied: false, files: summariseFiles(files, diff), verify: verdict };
  // What the edit would do to the diagnostics; a refusal's errors are in the verdict.
  if (verdict.passed && delta) result.diagnostics_delta = deltaAnswer(delta);
  return result;
}

function kept(
  result: EditResult,
  delta: DiagnosticsDelta | undefined,
  verdict: Verdict,
  options: CommitOptions,
): EditResult {
  if (delta) result.diagnostics_delta = deltaAnswer(delta);
  if (options.wide) result.note = projectDiagnosticsNote;
  result.verify = verdict;
  return result;
}
