import { stat } from "node:fs/promises";
import { z } from "zod";
import { isAppError } from "../errors.js";
import { type SymbolResult, symbolSchema, toSymbolResult } from "../symbols/result.js";
import { codeFilesUnder } from "./code-files.js";
import { completeness, maxAnswerChars, plural } from "./common.js";
import { renderSymbol } from "./find-symbol.js";
import { fileSymbols } from "./symbol-access.js";
import { excludeTests, isTestFile } from "./test-files.js";
import { defineTool, readOnly } from "./tool.js";

interface FileOverview {
  relative_path: string;
  symbols: SymbolResult[];
}

export const getSymbolsOverviewTool = defineTool({
  name: "get_symbols_overview",
  title: "Symbols overview",
  description:
    "Lists the top-level symbols (classes, functions, interfaces, …) of a file, or of every code file under a directory, with their name paths and 1-based line spans. Use it first when you meet an unfamiliar file, before reading it whole; raise depth to see members. To locate one symbol by name use find_symbol.",
  input: {
    relative_path: z.string().describe("File or directory, relative to the project root"),
    depth: z
      .number()
      .int()
      .min(0)
      .default(0)
      .describe("Levels of children to include (1 shows class members)"),
    exclude_tests: excludeTests,
    max_answer_chars: maxAnswerChars,
  },
  output: {
    files: z.array(z.object({ relative_path: z.string(), symbols: z.array(symbolSchema) })),
    ...completeness,
  },
  annotations: readOnly,
  narrowHint: "Ask for a sub-directory or a single file, or lower depth.",
  shrink: [
    (r) => ({
      ...r,
      files: r.files.map((f) => ({ ...f, symbols: f.symbols.map(({ children: _c, ...s }) => s) })),
    }),
    (r) => ({
      ...r,
      files: r.files.map((f) => ({
        relative_path: `${f.relative_path} (${plural(f.symbols.length, "symbol")})`,
        symbols: [],
      })),
    }),
  ],
  async run(args, ctx) {
    const project = ctx.project;
    const start = project.sandbox.resolve(args.relative_path, { mustExist: true });
    const isFile = (await stat(start.abs)).isFile();
    const found = isFile ? [start] : await codeFilesUnder(project, start.rel, ctx.signal);
    const files = args.exclude_tests ? found.filter((f) => !isTestFile(project, f.rel)) : found;
    const out: FileOverview[] = [];
    const problems = new Set<string>();
    let done = 0;
    for (const file of files) {
      try {
        const fs = await fileSymbols(project, file, ctx.signal);
        out.push({
          relative_path: file.rel,
          symbols: fs.roots.map((n) => toSymbolResult(n, file.rel, { depth: args.depth })),
        });
      } catch (error) {
        if (isFile || !isAppError(error) || error.code !== "language_server_unavailable") throw error;
        problems.add(error.message);
      }
      done++;
      if (files.length > 20 && done % 20 === 0)
        ctx.progress(`symbols of ${done}/${files.length} files`, done, files.length);
    }
    const result: { files: FileOverview[]; complete: boolean; incomplete_reason?: string } = {
      files: out,
      complete: problems.size === 0,
    };
    if (problems.size > 0) result.incomplete_reason = [...problems].join(" ");
    return result;
  },
  render(r) {
    const parts: string[] = [];
    if (!r.complete) parts.push(`(incomplete: ${r.incomplete_reason})`);
    for (const f of r.files) {
      parts.push(`${f.relative_path}:`);
      for (const s of f.symbols) parts.push(renderSymbol(s, "  ", false));
    }
    return parts.join("\n") || "no symbols";
  },
});
