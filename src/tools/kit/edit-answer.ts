/**
 * How a writing tool's answer (commit/edit-result.ts) is fitted to the caller's budget and shown as
 * text: the diff cut at whole files, a dry run's `next` call, a broken build's flood of diagnostics.
 */

import { editResultShape, readFileChange, summariseFiles } from "../../commit/edit-result.js";
import { plural } from "../../core/words.js";
import { diagnosticCount } from "../../diagnostics/diagnostic.js";
import { cutPatches, parsePatches } from "../../edits/diff.js";
import { type Answer, nextCall } from "./envelope.js";
import { maxAnswerChars } from "./params.js";

export type EditResult = Answer<typeof editResultShape>;

/** Diagnostics kept per list of diagnostics_delta when the answer is over its budget. */
const shrunkDeltaItems = 20;

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
  const summarised = new Set(
    r.files
      .map(readFileChange)
      .filter((f) => f?.sites !== undefined)
      .map((f) => f!.relative_path),
  );
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

const readTheRest = "Read the changed lines with read_file (files says at which lines).";

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
          hint: `${r.hint ? `${r.hint} ` : ""}All but the first ${shrunkDeltaItems} lines of diagnostics of each kind were left out because the answer is large; call get_diagnostics_for_file on the touched files for the full list.`,
        }
      : r,
  (r) => {
    const errors = r.verify?.errors;
    if (!r.verify || !errors) return r;
    const all = Object.values(errors).flat().length;
    if (all <= shrunkDeltaItems) return r;
    return {
      ...r,
      verify: { ...r.verify, errors: firstErrors(errors, shrunkDeltaItems) },
      hint: `${r.hint ? `${r.hint} ` : ""}Only the first ${shrunkDeltaItems} of ${all} new errors are listed because the answer is large; nothing was written, so the same call with a larger max_answer_chars lists them all.`,
    };
  },
];

/** The first `n` errors, files in order. */
function firstErrors(byFile: Record<string, string[]>, n: number): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  let left = n;
  for (const [file, lines] of Object.entries(byFile)) {
    if (left <= 0) break;
    out[file] = lines.slice(0, left);
    left -= lines.length;
  }
  return out;
}

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
export const editBudget = maxAnswerChars;

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

const sum = (counts: number[]) => counts.reduce((n, c) => n + c, 0);

export function renderEditResult(r: EditResult): string {
  const out: string[] = [];
  const count = plural(r.files.length, "file");
  const v = r.verify;
  if (v && !v.passed) out.push(`Verify refused it (${v.reason ?? "new errors"}): nothing was written.`);
  else if (v && !r.applied) out.push("Verify passed: no new errors.");
  if (!r.applied)
    out.push(`${v && !r.diff ? "" : "Dry run: nothing was written. "}The edit would change ${count}:`);
  else if (r.files.length === 0) out.push("Applied; no file content changed.");
  else out.push(`Applied edit ${r.edit_id ?? ""} to ${count}:`.replace("  ", " "));
  for (const f of r.files) out.push(`  ${f}`);
  if (r.diff) out.push("", r.diff.trimEnd());
  const delta = r.diagnostics_delta;
  if (delta) {
    if (delta.new.length === 0 && delta.resolved.length === 0) out.push("", "Diagnostics: no change.");
    if (delta.new.length > 0) {
      out.push("", `New diagnostics (${sum(delta.new.map(diagnosticCount))}):`);
      for (const d of delta.new) out.push(`  ${d}`);
    }
    if (delta.resolved.length > 0)
      out.push("", `Resolved diagnostics: ${sum(delta.resolved.map(diagnosticCount))}`);
    out.push(`Checked ${plural(delta.checked_count, "file")}.`);
    if (!delta.complete)
      out.push(`Delta incomplete: ${delta.incomplete_reason ?? "some files were not checked"}`);
  }
  for (const [file, lines] of Object.entries(v?.errors ?? {})) {
    out.push("", `New errors in ${file}:`);
    for (const line of lines) out.push(`  ${line}`);
  }
  if (v?.passed && r.applied) out.push("Verified: no new errors.");
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
