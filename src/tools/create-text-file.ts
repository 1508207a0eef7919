import { z } from "zod";
import { commitPlan } from "../commit/commit-plan.js";
import { defineTool, writes } from "./kit/define.js";
import { editBudget, editOutput, renderEditResult } from "./kit/edit-answer.js";
import { dryRun, verify } from "./kit/params.js";

export const createTextFileTool = defineTool({
  name: "create_text_file",
  title: "Create a text file",
  description: "Creates a file, or replaces a whole one with overwrite.",
  input: {
    relative_path: z.string(),
    content: z.string(),
    overwrite: z.boolean().default(false),
    dry_run: dryRun,
    verify,
    max_answer_chars: editBudget,
  },
  ...editOutput,
  annotations: writes,
  async run(args, ctx) {
    const project = ctx.project;
    const path = project.sandbox.resolve(args.relative_path, { kind: "file" });
    return commitPlan(
      ctx,
      [{ kind: "create", path, content: args.content, overwrite: args.overwrite }],
      args.dry_run,
      { tool: "create_text_file", verify: args.verify },
    );
  },
  render: renderEditResult,
});
