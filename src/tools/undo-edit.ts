import { z } from "zod";
import { commitPlan } from "../commit/commit-plan.js";
import { undoPlan } from "../edits/journal.js";
import { defineTool, writes } from "./kit/define.js";
import { editBudget, editOutput, renderEditResult } from "./kit/edit-answer.js";
import { dryRun } from "./kit/params.js";

export const undoEditTool = defineTool({
  name: "undo_edit",
  title: "Undo an edit",
  description:
    "Reverses an edit that scalpel applied (by edit_id, default the last one not yet undone), restoring every file it touched byte for byte, in any encoding and line-ending style. The journal (the last 200 edits) is kept per user outside the project, so this also works after a server restart, and only edits made through scalpel can be undone. Refuses with edit_conflict, writing nothing, if any of those files changed since. Use it to back out a change instead of editing it back by hand.",
  input: {
    edit_id: z
      .string()
      .optional()
      .describe("The edit_id an editing tool returned; default: the last applied edit"),
    dry_run: dryRun,
    max_answer_chars: editBudget,
  },
  ...editOutput,
  annotations: writes,
  async run(args, ctx) {
    const journal = ctx.project.journal;
    const entry = await journal.pick(args.edit_id);
    const result = await commitPlan(ctx, undoPlan(entry), args.dry_run, {
      tool: "undo_edit",
      reverses: entry.id,
    });
    if (result.applied) await journal.markUndone(entry.id);
    return result;
  },
  render: renderEditResult,
});
