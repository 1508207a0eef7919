import { commitPlan } from "../commit/commit-plan.js";
import { AppError } from "../core/errors.js";
import type { EditPlan } from "../edits/plan.js";
import { deleteEdit, siteOf } from "../edits/symbol-sites.js";
import { collectReferences } from "../references/sites.js";
import { resolveSymbol } from "../symbols/access.js";
import { defineTool } from "./kit/define.js";
import { editBudget, editOutput, renderEditResult } from "./kit/edit-answer.js";
import { definingFile, dryRun, namePath, verify } from "./kit/params.js";

export const safeDeleteSymbolTool = defineTool({
  name: "safe_delete_symbol",
  title: "Delete unused symbol",
  description: "Deletes a symbol's declaration if nothing references it; else lists the references.",
  input: {
    name_path: namePath,
    relative_path: definingFile,
    dry_run: dryRun,
    verify,
    max_answer_chars: editBudget,
  },
  ...editOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  async run(args, ctx) {
    const project = ctx.project;
    const { file, node } = await resolveSymbol(project, args.relative_path, args.name_path, ctx.signal);
    const answer = await collectReferences({
      project,
      session: file.session,
      adapter: file.adapter,
      uri: file.doc.uri,
      abs: file.path.abs,
      node,
      contextLines: 0,
      signal: ctx.signal,
    });
    const refs = answer.references;
    const { start, end } = node.range;
    const outside = refs.filter(
      (r) => r.relative_path !== file.path.rel || r.line - 1 < start.line || r.line - 1 > end.line,
    );
    if (outside.length > 0) {
      const listed = outside
        .slice(0, 20)
        .map(
          (r) =>
            `${r.relative_path}:${r.line}${r.containing_symbol ? ` (${r.containing_symbol.name_path})` : ""}`,
        )
        .join(", ");
      throw new AppError(
        "symbol_in_use",
        `${node.namePath} is still used in ${outside.length} place${outside.length === 1 ? "" : "s"}: ${listed}${outside.length > 20 ? ", …" : ""}. Remove or change those usages first (find_referencing_symbols shows them with context), then call safe_delete_symbol again.`,
        { references: outside.map((r) => ({ relative_path: r.relative_path, line: r.line })) },
      );
    }
    if (answer.incompleteReason) {
      // No reference found, but not every file that names the symbol was checked: deleting could
      // break one of those.
      throw new AppError(
        "symbol_in_use",
        `${node.namePath} may still be used: ${answer.incompleteReason}. Check those files (search_for_pattern), then delete the declaration with replace_content if it is unused.`,
      );
    }
    // No reference found: only worth trusting if the server that looked is still whole.
    file.session.assertHealthy("deleted");
    const plan: EditPlan = [
      {
        kind: "edit",
        path: file.path,
        edits: [deleteEdit(siteOf(file.doc.text, node), node)],
        expectedText: file.doc.text,
      },
    ];
    return commitPlan(ctx, plan, args.dry_run, { tool: "safe_delete_symbol", verify: args.verify });
  },
  render: renderEditResult,
});
