/**
 * The tools that edit one symbol's text (replace its declaration, insert before or after it) share
 * one shape and one path: resolve the name path, compute one edit at the symbol's site, commit.
 */

import type { TextEdit } from "vscode-languageserver-protocol";
import { z } from "zod";
import type { EditPlan } from "../edits/plan.js";
import type { SymbolNode } from "../symbols/tree.js";
import { dryRun } from "./common.js";
import { commitPlan, editResultShape, renderEditResult } from "./edit-result.js";
import { resolveSymbol } from "./symbol-access.js";
import { type SymbolSite, siteOf } from "./symbol-edits.js";
import { defineTool, writes } from "./tool.js";

export interface SymbolEditToolSpec {
  name: string;
  title: string;
  description: string;
  bodyDescription: string;
  edit: (site: SymbolSite, node: SymbolNode, body: string) => TextEdit;
}

export function symbolEditTool(spec: SymbolEditToolSpec) {
  return defineTool({
    name: spec.name,
    title: spec.title,
    description: spec.description,
    input: {
      name_path: z.string().describe("Name path of the symbol, e.g. 'Money/add'"),
      relative_path: z.string().describe("The file that defines the symbol"),
      body: z.string().describe(spec.bodyDescription),
      dry_run: dryRun,
    },
    output: editResultShape,
    annotations: writes,
    async run(args, ctx) {
      const { file, node } = await resolveSymbol(ctx.project, args.relative_path, args.name_path, ctx.signal);
      const edit = spec.edit(siteOf(file.doc.text, node), node, args.body);
      const plan: EditPlan = [{ kind: "edit", path: file.path, edits: [edit], expectedText: file.doc.text }];
      return commitPlan(ctx, plan, args.dry_run, { tool: spec.name });
    },
    render: renderEditResult,
  });
}
