/**
 * The result every writing tool returns, and the one path from an edit plan to the disk for tools:
 * read-only check, apply (or preview), tell the language servers, describe what happened.
 */
import { randomBytes } from "node:crypto";
import { z } from "zod";
import { type ApplyResult, applyPlan, applyRecomputed, isStaleConflict, planPaths } from "../edits/apply.js";
import { cutPatches, parsePatches } from "../edits/diff.js";
import { journalFiles } from "../edits/journal.js";
import type { EditPlan } from "../edits/plan.js";
import { AppError } from "../errors.js";
import { maxAnswerChars, plural } from "./common.js";
import { type Diagnostic, diagnosticSchema } from "./diagnostic.js";
import { type ChangedSymbol, deltaAfter, snapshotBefore } from "./diagnostics-delta.js";
import { type Answer, nextCall } from "./envelope.js";
import type { ToolContext } from "./tool.js";

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
  applied: z.boolean().describe("false for a dry run: nothing was written"),
  edit_id: z.string().optional().describe("pass to undo_edit to revert this edit"),
  files: z.array(fileChangeSchema),
  diff: z.string().optional().describe("unified diff of the change"),
  diagnostics_delta: z
    .object({
      new: z.array(diagnosticSchema),
      resolved: z.array(diagnosticSchema),
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

type FileChange = EditResult["files"][number];

/**
 * Adds `sites` and `lines` to the files whose diff `shownDiff` leaves out (or cuts short), read
 * from the whole diff: an agent still sees where each file changes without the diff's text.
 */
export function summariseFiles(files: FileChange[], fullDiff: string, shownDiff = ""): FileChange[] {
  const whole = new Map(parsePatches(fullDiff).map((p) => [p.path, p]));
  const shown = new Map(parsePatches(shownDiff).map((p) => [p.path, p.hunks.length]));
  return files.map((f) => {
    const p = whole.get(f.relative_path);
    if (!p || shown.get(f.relative_path) === p.hunks.length) return f;
    return { ...f, sites: p.sites, lines: p.lines.slice(0, listedLines) };
  });
}

const jsonLength = (text: string) => JSON.stringify(text).length;

/**
 * The diff cut to `budget` characters (as JSON) at whole files (or the first file's whole hunks),
 * with a hint that says how many files' diffs are shown of how many, ending in `more`.
 * `counts`: also set the envelope's `total`/`shown` — only for a tool that gives the `next` call.
 */
function cutDiff(r: EditResult, fullDiff: string, budget: number, more: string, counts: boolean): EditResult {
  const patches = parsePatches(fullDiff);
  const cut = cutPatches(patches, budget, jsonLength);
  // After an earlier cut, a file whose diff is gone already carries its sites: count it too.
  const summarised = new Set(r.files.filter((f) => f.sites !== undefined).map((f) => f.relative_path));
  const total = summarised.size + patches.filter((p) => !summarised.has(p.path)).length;
  const { diff: _diff, ...rest } = r;
  const files = summariseFiles(r.files, fullDiff, cut.diff);
  const partial = cut.hunks > 0 ? ` and ${plural(cut.hunks, "hunk")} of the next` : "";
  const hint = `Diffs of ${cut.files} of ${plural(total, "file")}${partial} are shown (whole files and hunks, cut to fit the answer); every file is listed in files, with sites and the lines where the rest change. ${more}`;
  return {
    ...rest,
    files,
    ...(cut.diff !== "" ? { diff: cut.diff } : {}),
    ...(counts ? { total, shown: cut.files } : {}),
    hint,
  };
}

const readTheRest = "Read the changed lines with read_file (files[].lines says where).";

/** Halves the shown diff at whole files; the first step also records which files are left out. */
function halveDiff(r: EditResult): EditResult {
  if (!r.diff) return r;
  return cutDiff(r, r.diff, Math.floor(jsonLength(r.diff) / 2), readTheRest, false);
}

/**
 * Budget steps for writing tools: the diff, halved at whole files (never mid-hunk) until it fits,
 * then a broken build's flood of new diagnostics.
 */
export const editResultShrink: Array<(r: EditResult) => EditResult> = [
  ...Array.from({ length: 8 }, () => halveDiff),
  (r) => (r.diff ? cutDiff(r, r.diff, 0, readTheRest, false) : r),
  (r) =>
    r.diagnostics_delta
      ? {
          ...r,
          diagnostics_delta: {
            ...r.diagnostics_delta,
            new: r.diagnostics_delta.new.slice(0, shrunkDeltaItems),
            resolved: r.diagnostics_delta.resolved.slice(0, shrunkDeltaItems),
          },
          hint: `${r.hint ? `${r.hint} ` : ""}All but the first ${shrunkDeltaItems} diagnostics of each kind were left out because the answer is large; call get_diagnostics_for_file on the touched files for the full list.`,
        }
      : r,
];

/**
 * A dry run fitted to `max` by its tool, which knows the caller's arguments: as much of the diff as
 * fits, in whole files and hunks, and a `next` call with room for all of it. An answer that fits
 * is returned unchanged.
 */
export function fitDryRun(
  r: EditResult,
  max: number,
  tool: string,
  args: Record<string, unknown>,
): EditResult {
  // Both forms a client may show: the JSON and the text with the wrapper's truncation lines.
  const size = (x: EditResult) =>
    Math.max(
      JSON.stringify(x).length,
      renderEditResult(x).length + (x.truncated ? `\n(truncated) ${x.hint}\nnext: ${x.next}`.length : 0),
    );
  if (!r.diff || size(r) <= max) return r;
  const need = Math.ceil((size(r) + 1000) / 1000) * 1000;
  const next = nextCall(tool, args, { max_answer_chars: need });
  const more = `Read the changed lines with read_file, or see the whole diff with the call in next (max_answer_chars=${need}).`;
  // `next` repeats the caller's arguments; when they alone are over the budget (a long body or file
  // content), the hint names the budget to call again with instead.
  const again = `Read the changed lines with read_file, or call ${tool} again with the same arguments and max_answer_chars=${need} to see the whole diff.`;
  const diff = r.diff;
  const withNext = (budget: number): EditResult => ({
    ...cutDiff(r, diff, budget, more, true),
    truncated: true,
    next,
  });
  // Without a next call there is no page to count either (shown, total).
  const without = (budget: number): EditResult => ({
    ...cutDiff(r, diff, budget, again, false),
    truncated: true,
  });
  const form = size(withNext(0)) <= max ? withNext : without;
  const bare = form(0);
  // The hint's counts grow by a few digits once diffs are shown.
  const budget = max - size(bare) - 20;
  return budget <= 0 ? bare : form(budget);
}

export const editNarrowHint = readTheRest;

/**
 * Every writing tool's budget parameter. A dry run can be asked again with more room, so over the
 * budget it gets `next`; an applied edit cannot be repeated, so its answer says where to read.
 */
export const editBudget = maxAnswerChars.describe(
  "Upper bound on the answer's size in characters. Over it, a dry run lists every file with its edited lines, shows the diff of as many whole files as fit, and gives in next the call that shows all of it; an applied edit's diff is cut at whole files and files[].lines says where the rest changed.",
);

/** A writing tool's answer fitted by the tool itself before the wrapper's steps: dry runs only. */
export function fitEdit(
  r: EditResult,
  max: number,
  call: { tool: string; args: Record<string, unknown> },
): EditResult {
  if (r.applied) return r;
  const { max_answer_chars: _max, ...args } = call.args;
  return fitDryRun(r, max, call.tool, { ...args, dry_run: true });
}

/** What every writing tool declares about its answer: its fields and how to fit it in the budget. */
export const editOutput = {
  output: editResultShape,
  shrink: editResultShrink,
  narrowHint: editNarrowHint,
  // `next` repeats the caller's arguments (a body, a file's content): cut, it would not work.
  keepWhole: ["files", "next"],
  fit: fitEdit,
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
  /**
   * false: an applied edit's diff is not echoed, only where each file changed (files[].sites,
   * lines). For edits whose new text the caller sent itself (a symbol's body): measured on rxjs,
   * replace_symbol_body's echo was 546 of 3,017 characters and told the agent only what it wrote.
   * A dry run always shows the diff.
   */
  echoDiff?: boolean;
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
  if (applied.diff !== "" && options.echoDiff !== false && applied.diff.length <= appliedDiffMaxChars)
    result.diff = applied.diff;
  // A long diff is not echoed; where each file changed still is.
  else if (applied.diff !== "") result.files = summariseFiles(files, applied.diff);
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
  for (const f of r.files) {
    const where =
      f.sites === undefined
        ? ""
        : ` ${plural(f.sites, "site")}, at line${f.lines?.length === 1 ? "" : "s"} ${(f.lines ?? []).join(", ")}${f.sites > (f.lines?.length ?? 0) ? ", …" : ""}`;
    out.push(`  ${f.relative_path} (+${f.added_lines} -${f.removed_lines})${where}`);
  }
  if (r.diff) out.push("", r.diff.trimEnd());
  const delta = r.diagnostics_delta;
  if (delta) {
    if (delta.new.length === 0 && delta.resolved.length === 0) out.push("", "Diagnostics: no change.");
    if (delta.new.length > 0) {
      out.push("", `New diagnostics (${delta.new.length}):`);
      for (const d of delta.new) out.push(`  ${renderDiagnostic(d)}`);
    }
    if (delta.resolved.length > 0) out.push("", `Resolved diagnostics: ${delta.resolved.length}`);
    out.push(`Checked ${plural(delta.checked_count, "file")}.`);
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
