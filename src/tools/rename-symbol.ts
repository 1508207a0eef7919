import type { WorkspaceEdit } from "vscode-languageserver-protocol";
import { z } from "zod";
import type { EditPlan } from "../edits/plan.js";
import { offsetAt, readTextFile } from "../edits/text.js";
import { workspaceEditToPlan } from "../edits/workspace-edit.js";
import { AppError } from "../errors.js";
import { dryRun } from "./common.js";
import { commitPlan, editOutput, renderEditResult } from "./edit-result.js";
import { resolveSymbol } from "./symbol-access.js";
import { defineTool, writes } from "./tool.js";

const identifier = /^[\p{L}\p{Nl}_$][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}_$]*$/u;

/**
 * tsserver's rename carries no document versions. Each edited range must still hold the old name
 * on disk; the text read here is pinned so that a change between now and the write is refused
 * (edit_conflict) instead of being overwritten.
 */
async function pinExpectedTexts(plan: EditPlan, oldName: string): Promise<void> {
  for (const op of plan) {
    if (op.kind !== "edit") continue;
    const { text } = await readTextFile(op.path.abs, op.path.rel);
    for (const e of op.edits) {
      const current = text.slice(offsetAt(text, e.range.start), offsetAt(text, e.range.end));
      if (!current.includes(oldName) && current !== "") {
        throw new AppError(
          "edit_conflict",
          `${op.path.rel} changed since the language server last read it (line ${e.range.start.line + 1} no longer holds '${oldName}'). Nothing was written; call rename_symbol again.`,
        );
      }
    }
    op.expectedText = text;
  }
}

export const renameSymbolTool = defineTool({
  name: "rename_symbol",
  title: "Rename symbol",
  description:
    "Renames a symbol and every type-precise reference to it across the project, through the language server (a same-named member of another class is left alone). Run it with dry_run: true first to see the diff. Use it instead of search-and-replace for any identifier.",
  input: {
    name_path: z.string().describe("Name path of the symbol, e.g. 'Money/add'"),
    relative_path: z.string().describe("The file that defines the symbol"),
    new_name: z.string().min(1).describe("The new identifier"),
    dry_run: dryRun,
  },
  ...editOutput,
  annotations: writes,
  async run(args, ctx) {
    if (!identifier.test(args.new_name)) {
      throw new AppError(
        "invalid_argument",
        `'${args.new_name}' is not a valid identifier. Give just the new name, without its class or path.`,
      );
    }
    const project = ctx.project;
    const { file, node } = await resolveSymbol(project, args.relative_path, args.name_path, ctx.signal);
    if (node.name === args.new_name) {
      throw new AppError("invalid_argument", `${node.namePath} is already called '${args.new_name}'.`);
    }
    const edit = await file.session.request<WorkspaceEdit | null>(
      "textDocument/rename",
      { textDocument: { uri: file.doc.uri }, position: node.selectionRange.start, newName: args.new_name },
      { signal: ctx.signal },
    );
    if (!edit || (!edit.changes && !edit.documentChanges)) {
      throw new AppError(
        "invalid_argument",
        `The language server cannot rename ${node.namePath} (it may be declared in a library). Nothing was changed.`,
      );
    }
    const plan = workspaceEditToPlan(edit, project.sandbox);
    await pinExpectedTexts(plan, node.name);
    return commitPlan(ctx, plan, args.dry_run, { tool: "rename_symbol" });
  },
  render: renderEditResult,
});
