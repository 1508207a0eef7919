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
    "Reverts a scalpel edit (default: the last), byte for byte; refuses if its files changed since.",
  input: {
    edit_id: z.string().optional(),
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
