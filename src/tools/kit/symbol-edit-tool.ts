/**
 * The tools that edit one symbol's text (replace its declaration, insert before or after it) share
 * one shape and one path: resolve the name path, compute one edit at the symbol's site, commit.
 */

import type { TextEdit } from "vscode-languageserver-protocol";
import { z } from "zod";
import { commitPlan } from "../../commit/commit-plan.js";
import type { ChangedSymbol } from "../../diagnostics/delta.js";
import type { EditPlan } from "../../edits/plan.js";
import { type SymbolSite, siteOf } from "../../edits/symbol-sites.js";
import { resolveSymbol } from "../../symbols/access.js";
import type { SymbolNode } from "../../symbols/tree.js";
import { defineTool, writes } from "./define.js";
import { editBudget, editOutput, renderEditResult } from "./edit-answer.js";
import { definingFile, dryRun, namePath, showDiff, verify } from "./params.js";

export interface SymbolEditToolSpec {
  name: string;
  title: string;
  description: string;
  edit: (site: SymbolSite, node: SymbolNode, body: string) => TextEdit;
  /** The edit changes the symbol itself (not only its neighbourhood): its callers join the delta. */
  changesSymbol?: boolean;
}

export function symbolEditTool(spec: SymbolEditToolSpec) {
  return defineTool({
    name: spec.name,
    title: spec.title,
    description: spec.description,
    input: {
      name_path: namePath,
      relative_path: definingFile,
      body: z.string(),
      dry_run: dryRun,
      verify,
      show_diff: showDiff,
      max_answer_chars: editBudget,
    },
    ...editOutput,
    annotations: writes,
    async run(args, ctx) {
      // Resolved against the text the server has now; when another edit lands on the file first,
      // commitPlan calls this again so the symbol is found anew in the new text (never written
      // over it: the writer compares the text under the file's lock).
      let changed: ChangedSymbol | undefined;
      const makePlan = async (): Promise<EditPlan> => {
        const { file, node } = await resolveSymbol(
          ctx.project,
          args.relative_path,
          args.name_path,
          ctx.signal,
        );
        const edit = spec.edit(siteOf(file.doc.text, node, file.adapter.declarations), node, args.body);
        changed = { session: file.session, uri: file.doc.uri, position: node.selectionRange.start };
        return [{ kind: "edit", path: file.path, edits: [edit], expectedText: file.doc.text }];
      };
      return commitPlan(ctx, await makePlan(), args.dry_run, {
        tool: spec.name,
        verify: args.verify,
        recompute: makePlan,
        // The new text is the caller's own: echoing it back tells nothing new.
        echoDiff: args.show_diff,
        // Inserting next to a symbol changes none: no users to check.
        changedSymbols: () => (spec.changesSymbol && changed ? [changed] : []),
      });
    },
    render: renderEditResult,
  });
}
