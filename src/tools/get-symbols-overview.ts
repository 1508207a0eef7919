import { stat } from "node:fs/promises";
import { z } from "zod";
import { isAppError } from "../core/errors.js";
import { isTestFile } from "../languages/test-files.js";
import {
  type OutlineFile,
  outlineFile,
  outlineFileSchema,
  outlineLine,
  readOutlineFile,
  renderOutlineFiles,
} from "../symbols/outline.js";
import { renderSymbol } from "../symbols/render.js";
import { type SymbolResult, symbolSchema, toSymbolResult } from "../symbols/result.js";
import { defineTool, readOnly } from "./kit/define.js";
import { type Paging, withPaging } from "./kit/envelope.js";
import { completeness, excludeTests, maxAnswerChars, offset } from "./kit/params.js";

/** A file with its symbols as objects, or (a string) its outline: its path, then a line per top-level symbol. */
type FileOverview = { relative_path: string; symbols: SymbolResult[] } | OutlineFile;

/** Keeps `levels` levels of children below each top-level symbol (0: top level only). */
function pruneTo(levels: number) {
  const prune = (s: SymbolResult, left: number): SymbolResult => {
    const { children, ...rest } = s;
    if (left === 0 || children === undefined) return rest;
    return { ...rest, children: children.map((c) => prune(c, left - 1)) };
  };
  return <R extends { files: FileOverview[] }>(r: R): R => ({
    ...r,
    files: r.files.map((f) =>
      typeof f === "string" ? f : { ...f, symbols: f.symbols.map((s) => prune(s, levels)) },
    ),
  });
}

/**
 * The compact form: one line per top-level symbol, `name_path [kind] start-end`. Measured on
 * zod 3.25.76: src/v3/types.ts (221 top-level symbols) needs ~31k characters of JSON as Symbol
 * objects but 8.2k as an outline; src/v4/core/schemas.ts (334) 13.4k — so a central file's names
 * and line ranges fit the default budget instead of collapsing to a count. Past this, whole files
 * are cut by paging (offset). A directory's overview at depth 0 uses it from the start: on rxjs
 * src/internal/scheduler/ (21 files) Symbol objects were 4,791 characters of JSON for 2,541 of text.
 */
const outlineOf = (path: string, symbols: readonly SymbolResult[]) =>
  outlineFile(path, symbols.map(outlineLine));

const topLevelCount = (f: FileOverview) =>
  typeof f === "string" ? readOutlineFile(f).lines.length : f.symbols.length;

/**
 * A single file's overview pages its top-level symbols (whole, with their members), not files: a
 * file whose outline alone is over the budget is walked with `offset` like a directory is.
 */
const topLevelPaging: Paging = {
  items: "files",
  noun: "top-level symbol",
  narrowHint: "To see one symbol with its members, call find_symbol with its name path and depth 1.",
  units: {
    count: (files) => (files as FileOverview[]).reduce((n, f) => n + topLevelCount(f), 0),
    take(files, n) {
      let left = n;
      return (files as FileOverview[]).map((f) => {
        const here = Math.min(left, topLevelCount(f));
        left -= here;
        if (typeof f !== "string") return { ...f, symbols: f.symbols.slice(0, here) };
        const { relative_path, lines } = readOutlineFile(f);
        return outlineFile(relative_path, lines.slice(0, here));
      });
    },
  },
};

export const getSymbolsOverviewTool = defineTool({
  name: "get_symbols_overview",
  title: "Symbols overview",
  description:
    "Top-level symbols of a file, or of each code file under a folder, with line spans. Read it before a whole file.",
  input: {
    relative_path: z.string(),
    depth: z.number().int().min(0).default(0),
    exclude_tests: excludeTests,
    offset,
    max_answer_chars: maxAnswerChars,
  },
  output: {
    files: z
      .array(
        z.union([
          outlineFileSchema.describe(
            "compact form of a file: its path, then one line per top-level symbol (a directory at depth 0, and to fit the budget)",
          ),
          z.object({ relative_path: z.string(), symbols: z.array(symbolSchema) }),
        ]),
      )
      .describe("one entry per file, from offset on; the envelope's total counts all files"),
    ...completeness,
  },
  annotations: readOnly,
  narrowHint: "Ask for a sub-directory or a single file, set exclude_tests, or raise max_answer_chars.",
  paging: { items: "files", noun: "file" },
  // Degrades by depth first, then per symbol, then whole files by paging — never to a bare count.
  shrink: [
    pruneTo(2),
    pruneTo(1),
    pruneTo(0),
    (r) => ({
      ...r,
      files: r.files.map((f) =>
        typeof f === "string" ? f : { ...f, symbols: f.symbols.map(({ detail: _d, ...s }) => s) },
      ),
    }),
    (r) => ({
      ...r,
      files: r.files.map((f) => (typeof f === "string" ? f : outlineOf(f.relative_path, f.symbols))),
    }),
  ],
  async run(args, ctx) {
    const project = ctx.project;
    const start = project.sandbox.resolve(args.relative_path, { mustExist: true });
    const isFile = (await stat(start.abs)).isFile();
    const found = isFile ? [start] : await project.symbols.codeFiles(start.rel, ctx.signal);
    const all = args.exclude_tests ? found.filter((f) => !isTestFile(project.pool, f.rel)) : found;
    if (isFile && all.length === 1) {
      // From the index when it holds the file's text: no server, no didOpen.
      const fs = await project.symbols.file(start, ctx.signal);
      const symbols = fs.roots
        .slice(args.offset)
        .map((n) => toSymbolResult(n, undefined, { depth: args.depth }));
      const one = { files: [{ relative_path: start.rel, symbols }], complete: true, total: fs.roots.length };
      return withPaging(one, topLevelPaging);
    }
    // Whole files are the pages: only those from offset are read (the wrapper cuts the rest to fit).
    const files = all.slice(args.offset);
    const out: FileOverview[] = [];
    const problems = new Set<string>();
    let done = 0;
    for (const file of files) {
      try {
        const fs = await project.symbols.file(file, ctx.signal);
        const symbols = fs.roots.map((n) => toSymbolResult(n, undefined, { depth: args.depth }));
        // Top level only: the outline says all a Symbol object would, in a third of the JSON — unless
        // the server gave details (rust-analyzer: a function's signature), which it has no room for.
        out.push(
          args.depth === 0 && symbols.every((s) => s.detail === undefined)
            ? outlineOf(file.rel, symbols)
            : { relative_path: file.rel, symbols },
        );
      } catch (error) {
        if (isFile || !isAppError(error) || error.code !== "language_server_unavailable") throw error;
        problems.add(error.message);
      }
      done++;
      if (files.length > 20 && done % 20 === 0)
        ctx.progress(`symbols of ${done}/${files.length} files`, done, files.length);
    }
    const result: { files: FileOverview[]; complete: boolean; incomplete_reason?: string; total: number } = {
      files: out,
      complete: problems.size === 0,
      total: all.length,
    };
    if (problems.size > 0) result.incomplete_reason = [...problems].join(" ");
    return result;
  },
  render(r) {
    const parts: string[] = [];
    if (!r.complete) parts.push(`(incomplete: ${r.incomplete_reason})`);
    for (const f of r.files) {
      if (typeof f === "string") parts.push(...renderOutlineFiles([f]));
      else parts.push(f.relative_path, ...f.symbols.map((s) => renderSymbol(s, "  ")));
    }
    return parts.join("\n") || "no symbols";
  },
});
