import { z } from "zod";
import { actionPlan } from "../code-actions/carry-out.js";
import { chooseAction } from "../code-actions/choose.js";
import { offeredActions } from "../code-actions/offered.js";
import { commitPlan } from "../commit/commit-plan.js";
import { editResultShape } from "../commit/edit-result.js";
import { linesInput, linesName } from "./kit/code-action-params.js";
import { defineTool, writes } from "./kit/define.js";
import { editBudget, editOutput, renderEditResult } from "./kit/edit-answer.js";
import { dryRun, verify } from "./kit/params.js";

export const applyCodeActionTool = defineTool({
  name: "apply_code_action",
  title: "Apply a code action",
  description:
    "Applies one action of get_code_actions, chosen by title and/or kind (several matches: none applied).",
  input: {
    ...linesInput,
    title: z.string().min(1).optional().describe("exact, or a part matching one action"),
    kind: z.string().min(1).optional().describe("LSP kind or prefix"),
    new_name: z.string().min(1).optional().describe("name for what an extract creates"),
    dry_run: dryRun,
    verify,
    max_answer_chars: editBudget,
  },
  ...editOutput,
  output: {
    ...editResultShape,
    action: z.object({ title: z.string(), kind: z.string().optional() }).optional(),
  },
  annotations: writes,
  async run(args, ctx) {
    const offered = await offeredActions(ctx.project, {
      relativePath: args.relative_path,
      startLine: args.start_line,
      ...(args.end_line !== undefined ? { endLine: args.end_line } : {}),
      ...(args.kind !== undefined ? { kinds: [args.kind] } : {}),
      signal: ctx.signal,
    });
    const where = `at ${linesName(offered.file.path.rel, args.start_line, args.end_line)}`;
    const action = chooseAction(offered.actions, args.title, args.kind, where);
    const plan = await actionPlan(ctx.project, offered, action, args.new_name, ctx.signal);
    // A server's action that fails half-way may give only part of its edit.
    offered.file.session.assertHealthy("changed");
    // Past one file (a move, a fix in a declaring file) other files' errors may change too.
    const files = new Set(plan.map((op) => (op.kind === "rename" ? op.from.abs : op.path.abs)));
    const result = await commitPlan(ctx, plan, args.dry_run, {
      tool: "apply_code_action",
      verify: args.verify,
      wide: files.size > 1 || plan.some((op) => op.kind === "rename" || op.kind === "delete"),
    });
    // Servers offer some actions whatever the file holds (tsls' organize imports on sorted imports).
    if (result.files.length === 0)
      result.note = "The action changes nothing: the file already is as it would leave it.";
    return { ...result, action: { title: action.title, ...(action.kind ? { kind: action.kind } : {}) } };
  },
  render: (r) =>
    `${r.action ? `${r.action.title}${r.action.kind ? ` (${r.action.kind})` : ""}\n` : ""}${renderEditResult(r)}`,
});
