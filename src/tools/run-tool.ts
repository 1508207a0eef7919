/**
 * The single wrapper every tool call goes through, from MCP and from the terminal alike: it checks
 * the arguments, builds the context, runs the tool, keeps the answer within its budget, and turns
 * every failure into a result the caller can act on.
 */
import { z } from "zod";
import { AppError, isAppError } from "../errors.js";
import type { Logger } from "../log.js";
import type { Workspace } from "../workspace.js";
import type { ToolContext, ToolDef } from "./tool.js";

export interface ToolResult {
  [key: string]: unknown;
  content: Array<{ type: "text"; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface RunOptions {
  workspace: Workspace;
  log: Logger;
  signal?: AbortSignal;
  progress?: (message: string, done?: number, total?: number) => void;
  toolNames?: string[];
}

export const defaultMaxAnswerChars = 20_000;

export async function runTool(def: ToolDef, rawArgs: unknown, opts: RunOptions): Promise<ToolResult> {
  const log = opts.log.child(def.name);
  try {
    const parsed = z.object(def.input).safeParse(rawArgs ?? {});
    if (!parsed.success) {
      throw new AppError(
        "invalid_argument",
        `Invalid arguments for ${def.name}: ${describeZodError(parsed.error)}`,
      );
    }
    const args = parsed.data as Record<string, unknown>;
    const ctx = makeContext(opts, log);
    const result = (await def.run(args as never, ctx)) as Record<string, unknown>;
    const max = typeof args.max_answer_chars === "number" ? args.max_answer_chars : defaultMaxAnswerChars;
    const fitted = fitBudget(def, result, max);
    return { content: [{ type: "text", text: def.render(fitted as never) }], structuredContent: fitted };
  } catch (error) {
    return errorResult(def.name, error, opts.workspace, log);
  }
}

function makeContext(opts: RunOptions, log: Logger): ToolContext {
  const ws = opts.workspace;
  return {
    get project() {
      const p = ws.project;
      if (!p) {
        const why = ws.startupError
          ? ` The project given at start-up could not be activated: ${ws.startupError}`
          : "";
        throw new AppError(
          "no_active_project",
          `No project is active.${why} Call activate_project with the project's root path (or start scalpel with --project PATH).`,
        );
      }
      return p;
    },
    workspace: ws,
    signal: opts.signal ?? new AbortController().signal,
    log,
    progress: opts.progress ?? (() => {}),
    wantsProgress: opts.progress !== undefined,
    toolNames: opts.toolNames ?? [],
  };
}

function fitBudget(def: ToolDef, result: Record<string, unknown>, max: number): Record<string, unknown> {
  if (JSON.stringify(result).length <= max) return result;
  let current = result;
  for (const step of def.shrink ?? []) {
    current = step(current as never) as Record<string, unknown>;
    if (JSON.stringify(current).length <= max) break;
  }
  const hint =
    def.narrowHint ??
    "Narrow the query (a more specific name path or relative_path) or raise max_answer_chars.";
  return { ...current, truncated: true, hint };
}

export function describeZodError(error: z.ZodError): string {
  return error.issues
    .map((i) => `${i.path.length > 0 ? i.path.join(".") : "arguments"}: ${i.message}`)
    .join("; ");
}

/** Turns any failure into an error result without host paths or stack traces. */
export function errorResult(tool: string, error: unknown, workspace: Workspace, log: Logger): ToolResult {
  let code: string;
  let message: string;
  if (isAppError(error)) {
    code = error.code;
    message = error.message;
  } else {
    log.error(`unexpected failure in ${tool}`, error);
    code = "internal";
    message = `Internal error in ${tool}: ${error instanceof Error ? error.message : String(error)}. The details are in scalpel's log (stderr).`;
  }
  return {
    content: [{ type: "text", text: `Error (${code}): ${scrubPaths(message, workspace)}` }],
    isError: true,
  };
}

export function scrubPaths(text: string, workspace: Workspace): string {
  let out = text;
  const root = workspace.project?.root;
  if (root) out = out.split(`${root}/`).join("").split(root).join(".");
  // Any absolute path left is a host path: keep only its base name.
  return out.replace(/(?:^|(?<=[\s'"(]))\/(?:[^\s'"()/]+\/)+([^\s'"()/]+)/g, "…/$1");
}
