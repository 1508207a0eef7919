/**
 * The shape of one tool. Every tool is a plain object in `tools/index.ts`; `tools/kit/run.ts` is the
 * single wrapper that validates, runs, budgets and renders it for both MCP and the terminal.
 */
import type { z } from "zod";
import type { CallContext } from "../../project/call-context.js";
import type { Workspace } from "../../workspace/workspace.js";
import type { Answer, Paging } from "./envelope.js";

export interface ToolContext extends CallContext {
  workspace: Workspace;
  /** The client sent a progress token with this call. */
  wantsProgress: boolean;
  /** Names of the tools registered in this session. */
  toolNames: string[];
}

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
}

export interface ToolDef<I extends z.ZodRawShape = z.ZodRawShape, O extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  /** Tells an agent when to use the tool and what to use instead. */
  description: string;
  input: I;
  /** The tool's own result fields; the envelope's (tools/envelope.ts) are added at registration. */
  output: O;
  annotations: ToolAnnotations;
  /**
   * Whether the tool writes project files (the default: whatever is not `readOnlyHint`). False for a
   * tool that changes state elsewhere but no file of the project (activate_project: the user-level
   * registry, language server processes), so that it stays available in read-only mode.
   */
  writesFiles?: boolean;
  /**
   * Seconds this tool may run when its own work can take longer than the default deadline of every
   * call (a project-wide compiler check); `SCALPEL_TOOL_TIMEOUT` overrides it (`deadlines.ts`).
   */
  deadlineSeconds?: number;
  /** Tools that write are not registered in read-only mode. */
  run(args: z.infer<z.ZodObject<I>>, ctx: ToolContext): Promise<Answer<O>>;
  /** Compact text rendering of the structured result; the wrapper adds the truncation note. */
  render(result: Answer<O>): string;
  /**
   * Steps that make a result smaller, tried in order when it exceeds `max_answer_chars`
   * (e.g. drop bodies → drop snippets → counts only). Each returns a new result that is still valid
   * for the output schema; a step may set `hint` (e.g. where to continue). The wrapper sets
   * `truncated` and cuts further if the last step is still too large.
   */
  shrink?: Array<(result: Answer<O>) => Answer<O>>;
  /** How to narrow the query; shown with `truncated: true` when the shrink step gave no hint. */
  narrowHint?: string;
  /**
   * Top-level fields the wrapper's last-resort cut never shortens, even past the budget: what an
   * edit changed (`files`) must be told whole, or an agent cannot know what it has to review.
   */
  keepWhole?: readonly string[];
  /**
   * Fits the answer to the call's budget before the wrapper's steps, for a tool that knows a better
   * cut and the `next` call (an edit's dry run: whole files of the diff, then the call with room for
   * all of it). `args` are the caller's own arguments (defaults left out).
   */
  fit?: (result: Answer<O>, max: number, call: { tool: string; args: Record<string, unknown> }) => Answer<O>;
  /** The answer is a list walked with `offset`: the wrapper cuts it at whole items and names the next page. */
  paging?: Paging;
}

/** Keeps literal types of the shapes while checking the object against ToolDef. */
export function defineTool<I extends z.ZodRawShape, O extends z.ZodRawShape>(
  def: ToolDef<I, O>,
): ToolDef<I, O> {
  return def;
}

/** Tools that write project files: left out in read-only mode. */
export function writesFiles(def: Pick<ToolDef, "annotations" | "writesFiles">): boolean {
  return def.writesFiles ?? !def.annotations.readOnlyHint;
}

export const readOnly: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true };
/** Writes that only add or change text the caller supplied. */
export const writes: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false };
