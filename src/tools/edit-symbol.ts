/** The common path of the tools that edit one symbol's text: resolve, compute one edit, commit. */
import type { TextEdit } from "vscode-languageserver-protocol";
import type { EditPlan } from "../edits/plan.js";
import type { SymbolNode } from "../symbols/tree.js";
import { commitPlan, type EditResult } from "./edit-result.js";
import { resolveSymbol } from "./symbol-access.js";
import { type SymbolSite, siteOf } from "./symbol-edits.js";
import type { ToolContext } from "./tool.js";

export interface SymbolEditArgs {
  name_path: string;
  relative_path: string;
  dry_run: boolean;
}

export async function editSymbol(
  ctx: ToolContext,
  args: SymbolEditArgs,
  makeEdit: (site: SymbolSite, node: SymbolNode) => TextEdit,
): Promise<EditResult> {
  const { file, node } = await resolveSymbol(ctx.project, args.relative_path, args.name_path, ctx.signal);
  const edit = makeEdit(siteOf(file.doc.text, node), node);
  const plan: EditPlan = [{ kind: "edit", path: file.path, edits: [edit], expectedText: file.doc.text }];
  return commitPlan(ctx, plan, args.dry_run);
}
