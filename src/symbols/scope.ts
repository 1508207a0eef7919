/**
 * What the symbol queries (find_symbol, search_symbols) share: which files a query covers (the
 * symbol service's list, kept by the file watcher), which kinds pass, and how a file no language
 * server handles is treated — inside a folder it is skipped and named (the answer is then
 * incomplete), given as the one file it is the answer.
 */
import { stat } from "node:fs/promises";
import { isAppError } from "../core/errors.js";
import type { AdapterLookup } from "../languages/test-files.js";
import { isTestFile } from "../languages/test-files.js";
import type { CheckedPath, Sandbox } from "../security/sandbox.js";
import { checkKinds } from "./kinds.js";
import type { SymbolService } from "./service.js";

export interface SymbolQueryArgs {
  relative_path: string;
  include_kinds: string | readonly string[];
  exclude_kinds: string | readonly string[];
  exclude_tests: boolean;
}

export interface SymbolScope {
  files: CheckedPath[];
  /** The query names one file (its answer or its error is the answer), not a folder. */
  isFile: boolean;
  /** Why files were skipped; empty when every file answered. */
  problems: Set<string>;
  passes(kind: string): boolean;
  /** Reads each file in turn; a folder's file no server handles is skipped and named in `problems`. */
  each<T>(read: (file: CheckedPath) => Promise<T>): AsyncGenerator<{ file: CheckedPath; value: T }>;
  /**
   * `complete` and `incomplete_reason` for the answer; `gaps`: files a scan of the index left out
   * (their server unavailable and the index not holding them), said with how far indexing is.
   */
  completeness(gaps?: IndexGaps): {
    complete: boolean;
    incomplete_reason?: string;
  };
}

/** What a symbol query needs of the call: the project's symbols, sandbox and pool, and its signal. */
export interface SymbolQueryContext {
  readonly project: {
    readonly symbols: SymbolService;
    readonly sandbox: Sandbox;
    readonly pool: AdapterLookup;
  };
  signal: AbortSignal;
}

export async function symbolScope(ctx: SymbolQueryContext, args: SymbolQueryArgs): Promise<SymbolScope> {
  const project = ctx.project;
  const include = checkKinds(args.include_kinds, "include_kinds");
  const exclude = checkKinds(args.exclude_kinds, "exclude_kinds");
  const start = project.sandbox.resolve(args.relative_path || ".", { mustExist: true });
  const isFile = (await stat(start.abs)).isFile();
  const found = isFile ? [start] : await project.symbols.codeFiles(start.rel, ctx.signal);
  const files = args.exclude_tests ? found.filter((f) => !isTestFile(project.pool, f.rel)) : found;
  const problems = new Set<string>();
  return {
    files,
    isFile,
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
    completeness(gaps) {
      const reasons = [...problems, ...(gaps?.problems ?? [])];
      if (gaps && gaps.missing > 0) reasons.push(indexNote(ctx, gaps));
      return reasons.length === 0
        ? { complete: true }
        : { complete: false, incomplete_reason: [...new Set(reasons)].join(" ") };
    },
  };
}

/** What a scan of the index left out: files neither the index nor their server could answer for. */
export interface IndexGaps {
  missing: number;
  problems: ReadonlySet<string>;
  /** Files whose current text the index held, of `total` scanned. */
  current: number;
  total: number;
}

/** How far the index is, for an answer it could not complete: "holds 1,234 of 5,000 files". */
function indexNote(ctx: SymbolQueryContext, gaps: IndexGaps): string {
  const n = (x: number) => x.toLocaleString("en-US");
  const p = ctx.project.symbols.progress;
  const building = p ? `; indexing ${n(p.indexed)} of ${n(p.total)} files` : "";
  return `${n(gaps.missing)} file${gaps.missing === 1 ? "" : "s"} not searched: the symbol index holds the current text of ${n(gaps.current)} of ${n(gaps.total)} files${building}, and the server that would read the others cannot answer now. Call again once it is up (get_current_config shows its status).`;
}
