/**
 * What the symbol queries (find_symbol, search_symbols) share: which files a query covers, which
 * kinds pass, and how a file no language server handles is treated — inside a folder it is skipped
 * and named (the answer is then incomplete), given as the one file it is the answer.
 */
import { stat } from "node:fs/promises";
import { isAppError } from "../errors.js";
import type { CheckedPath } from "../security/sandbox.js";
import { checkKinds } from "../symbols/kinds.js";
import { codeFilesUnder } from "./code-files.js";
import { isTestFile } from "./test-files.js";
import type { ToolContext } from "./tool.js";

export interface SymbolQueryArgs {
  relative_path: string;
  include_kinds: readonly string[];
  exclude_kinds: readonly string[];
  exclude_tests: boolean;
}

export interface SymbolScope {
  files: CheckedPath[];
  /** Why files were skipped; empty when every file answered. */
  problems: Set<string>;
  passes(kind: string): boolean;
  /** Reads each file in turn; a folder's file no server handles is skipped and named in `problems`. */
  each<T>(read: (file: CheckedPath) => Promise<T>): AsyncGenerator<{ file: CheckedPath; value: T }>;
  /** `complete` and `incomplete_reason` for the answer. */
  completeness(): { complete: boolean; incomplete_reason?: string };
}

/** `narrow` trims a folder's code files first (find_symbol keeps those that mention the name). */
export async function symbolScope(
  ctx: ToolContext,
  args: SymbolQueryArgs,
  narrow: (files: CheckedPath[]) => Promise<CheckedPath[]> = async (f) => f,
): Promise<SymbolScope> {
  const project = ctx.project;
  const include = checkKinds(args.include_kinds, "include_kinds");
  const exclude = checkKinds(args.exclude_kinds, "exclude_kinds");
  const start = project.sandbox.resolve(args.relative_path || ".", { mustExist: true });
  const isFile = (await stat(start.abs)).isFile();
  const found = isFile ? [start] : await narrow(await codeFilesUnder(project, start.rel, ctx.signal));
  const files = args.exclude_tests ? found.filter((f) => !isTestFile(project, f.rel)) : found;
  const problems = new Set<string>();
  return {
    files,
    problems,
    passes: (kind) => (include.size === 0 || include.has(kind)) && !exclude.has(kind),
    async *each(read) {
      for (const file of files) {
        let value: Awaited<ReturnType<typeof read>>;
        try {
          value = await read(file);
        } catch (error) {
          if (isFile || !isAppError(error) || error.code !== "language_server_unavailable") throw error;
          problems.add(error.message);
          continue;
        }
        yield { file, value };
      }
    },
    completeness: () =>
      problems.size === 0
        ? { complete: true }
        : { complete: false, incomplete_reason: [...problems].join(" ") },
  };
}
