import { z } from "zod";
import { commitPlan } from "../commit/commit-plan.js";
import { defineTool, writes } from "./kit/define.js";
import { editBudget, editOutput, renderEditResult } from "./kit/edit-answer.js";
import { dryRun } from "./kit/params.js";

export const createTextFileTool = defineTool({
  name: "create_text_file",
  title: "Create a text file",
  description:
    "Creates a new text file (missing parent directories are created), or replaces a whole file with overwrite: true (its line-ending style and BOM are kept). Use it for new files. To change part of an existing file use replace_content; to change code use replace_symbol_body, insert_after_symbol or insert_before_symbol. dry_run: true previews the diff without writing.",
  input: {
    relative_path: z.string().describe("Path of the file relative to the project root"),
    content: z.string().describe("The complete content of the file"),
    overwrite: z
      .boolean()
      .default(false)
      .describe("Replace the file if it exists (otherwise that is an error)"),
    dry_run: dryRun,
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
    );
  },
  render: renderEditResult,
});
