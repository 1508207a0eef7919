import { z } from "zod";
import { commitPlan } from "../commit/commit-plan.js";
import { AppError } from "../core/errors.js";
import type { EditPlan } from "../edits/plan.js";
import { findMatches } from "../search/needle-matches.js";
import type { TextEdit } from "../text/positions.js";
import { lineStarts, positionAt, readTextFile } from "../text/positions.js";
import { defineTool, writes } from "./kit/define.js";
import { editBudget, editOutput, renderEditResult } from "./kit/edit-answer.js";
import { dryRun, replaceParams, verify } from "./kit/params.js";

/** Line numbers listed in a `multiple_matches` error. */
const maxListedLines = 20;

export const replaceContentTool = defineTool({
  name: "replace_content",
  title: "Replace text in a file",
  description:
    "Replaces text in a file: a literal needle matching once (or allow_multiple), or a regex. Whole declarations: replace_symbol_body.",
  input: {
    relative_path: z.string(),
    ...replaceParams,
    dry_run: dryRun,
    verify,
    max_answer_chars: editBudget,
  },
  ...editOutput,
  annotations: writes,
  async run(args, ctx) {
    const project = ctx.project;
    const path = project.sandbox.resolve(args.relative_path, { mustExist: true, kind: "file" });
    // A find-and-replace means "this needle, wherever it is now": when another edit lands on the
    // file between reading and writing, commitPlan runs it again on the new text (and it fails with
    // no_match / multiple_matches if the needle is gone or doubled), rather than writing over it.
    const makePlan = async (): Promise<EditPlan> => {
      const { text } = await readTextFile(path.abs, path.rel);
      const found = await findMatches(text, args.needle, args.replacement, args.mode, {
        signal: ctx.signal,
        where: `'${path.rel}'`,
      });
      if (found.length === 0) {
        throw new AppError(
          "no_match",
          `The needle was not found in '${path.rel}'. Check whitespace and indentation against read_file's output${args.mode === "literal" ? ", or use mode: 'regex'" : ""}.`,
        );
      }
      if (found.length > 1 && !args.allow_multiple) {
        const lines = [...new Set(found.map((m) => m.line))];
        const listed =
          lines.slice(0, maxListedLines).join(", ") + (lines.length > maxListedLines ? ", …" : "");
        throw new AppError(
          "multiple_matches",
          `The needle matches ${found.length} times in '${path.rel}' (lines ${listed}). Include more surrounding text to make it unique, or pass allow_multiple: true to replace every match.`,
          { count: found.length, lines },
        );
      }
      const starts = lineStarts(text);
      const edits: TextEdit[] = found.map((m) => ({
        range: { start: positionAt(text, m.start, starts), end: positionAt(text, m.end, starts) },
        newText: m.newText,
      }));
      return [{ kind: "edit", path, edits, expectedText: text }];
    };
    return commitPlan(ctx, await makePlan(), args.dry_run, {
      tool: "replace_content",
      recompute: makePlan,
      verify: args.verify,
    });
  },
  render: renderEditResult,
});
