import { z } from "zod";
import { moveFilePlan } from "../code-actions/moves.js";
import { commitPlan } from "../commit/commit-plan.js";
import { editResultShape } from "../commit/edit-result.js";
import { leftOut, movedCompleteness, renderLeftOut } from "./kit/code-action-params.js";
import { defineTool, writes } from "./kit/define.js";
import { editBudget, editOutput, renderEditResult } from "./kit/edit-answer.js";
import { dryRun, verify } from "./kit/params.js";

export const moveFileTool = defineTool({
  name: "move_file",
  title: "Move or rename a file",
  description: "Moves or renames a file, updating its importers' and its own relative imports.",
  input: {
    relative_path: z.string(),
    to_path: z.string().min(1).describe("must not exist"),
    dry_run: dryRun,
    verify,
    max_answer_chars: editBudget,
  },
  ...editOutput,
  output: { ...editResultShape, ...movedCompleteness },
  annotations: writes,
  async run(args, ctx) {
    const moved = await moveFilePlan(ctx.project, args.relative_path, args.to_path, ctx.signal);
    const result = await commitPlan(ctx, moved.plan, args.dry_run, {
      tool: "move_file",
      wide: true,
      verify: args.verify,
    });
    return { ...result, ...leftOut(moved.unchecked) };
  },
  render: (r) => `${renderEditResult(r)}${renderLeftOut(r)}`,
});
