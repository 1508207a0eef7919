import { z } from "zod";
import { moveSymbolPlan } from "../code-actions/moves.js";
import { commitPlan } from "../commit/commit-plan.js";
import { editResultShape } from "../commit/edit-result.js";
import { leftOut, movedCompleteness, renderLeftOut } from "./kit/code-action-params.js";
import { defineTool, writes } from "./kit/define.js";
import { editBudget, editOutput, renderEditResult } from "./kit/edit-answer.js";
import { definingFile, dryRun, namePath, verify } from "./kit/params.js";

export const moveSymbolTool = defineTool({
  name: "move_symbol",
  title: "Move a declaration to another file",
  description:
    "Moves a top-level declaration (with its docs) to another file, new or existing, updating imports and uses.",
  input: {
    name_path: namePath,
    relative_path: definingFile,
    to_file: z.string().min(1),
    dry_run: dryRun,
    verify,
    max_answer_chars: editBudget,
  },
  ...editOutput,
  output: { ...editResultShape, ...movedCompleteness },
  annotations: writes,
  async run(args, ctx) {
    const moved = await moveSymbolPlan(
      ctx.project,
      args.relative_path,
      args.name_path,
      args.to_file,
      ctx.signal,
    );
    const result = await commitPlan(ctx, moved.plan, args.dry_run, {
      tool: "move_symbol",
      wide: true,
      verify: args.verify,
    });
    return { ...result, ...leftOut(moved.unchecked) };
  },
  render: (r) => `${renderEditResult(r)}${renderLeftOut(r)}`,
});
