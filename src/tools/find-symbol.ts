import { z } from "zod";
import { kindNames } from "../symbols/kinds.js";
import { parseNamePath } from "../symbols/name-path.js";
import { type SymbolResult, symbolSchema, toSymbolResult } from "../symbols/result.js";
import { filesContaining } from "./code-files.js";
import { completeness, maxAnswerChars, offsetParam, plural } from "./common.js";
import { fileSymbols, matchSymbols } from "./symbol-access.js";
import { symbolScope } from "./symbol-scope.js";
import { excludeTests } from "./test-files.js";
import { defineTool, readOnly } from "./tool.js";

/** Symbols listed per call unless max_matches says otherwise. */
const defaultMaxMatches = 100;

export const findSymbolTool = defineTool({
  name: "find_symbol",
  title: "Find symbol",
  description:
    "Finds classes, functions, methods, variables… by name path (e.g. 'Money/add', '/Cart', 'parse[1]'), across the project or under relative_path, with optional bodies and children. Use it instead of text search to locate a definition; use find_referencing_symbols for its usages and get_symbols_overview to see what a file holds.",
  input: {
    name_path_pattern: z
      .string()
      .describe(
        "Name path: 'foo' any depth, 'Cls/foo' suffix match, '/Cls/foo' absolute, 'foo[1]' one of same-named siblings",
      ),
    relative_path: z
      .string()
      .default("")
      .describe("File or directory to search in; empty for the whole project"),
    depth: z.number().int().min(0).default(0).describe("Levels of children to include"),
    include_body: z.boolean().default(false).describe("Include each symbol's source text"),
    substring_matching: z.boolean().default(false).describe("Match the last segment as a substring"),
    include_kinds: z.array(z.enum(kindNames as [string, ...string[]])).default([]),
    exclude_kinds: z.array(z.enum(kindNames as [string, ...string[]])).default([]),
    max_matches: z
      .number()
      .int()
      .min(1)
      .default(defaultMaxMatches)
      .describe("list at most this many symbols per call; the envelope's total counts all matches"),
    offset: offsetParam("matches"),
    exclude_tests: excludeTests,
    max_answer_chars: maxAnswerChars,
  },
  output: {
    symbols: z
      .array(symbolSchema)
      .describe("matches from offset on; the envelope's total counts all of them"),
    ...completeness,
  },
  annotations: readOnly,
  // The tool applies max_matches itself; the wrapper's hint names the value this call had.
  paging: { items: "symbols", noun: "symbol", limit: { param: "max_matches", default: defaultMaxMatches } },
  narrowHint: "Give a longer name path, a relative_path, include_kinds, or set include_body false.",
  shrink: [
    (r) => ({ ...r, symbols: r.symbols.map(({ body: _b, ...s }) => s) }),
    (r) => ({ ...r, symbols: r.symbols.map(({ body: _b, children: _c, ...s }) => s) }),
  ],
  async run(args, ctx) {
    const project = ctx.project;
    const last = parseNamePath(args.name_path_pattern).segments.at(-1)!.name;
    const scope = await symbolScope(ctx, args, (files) => filesContaining(files, last));
    const symbols: SymbolResult[] = [];
    // Every match is counted (total); only those in [offset, offset + max_matches) are listed.
    let total = 0;
    for await (const { file, value: fs } of scope.each((f) => fileSymbols(project, f, ctx.signal))) {
      for (const node of matchSymbols(fs.roots, args.name_path_pattern, args.substring_matching)) {
        if (!scope.passes(node.kind)) continue;
        total++;
        if (total <= args.offset || symbols.length >= args.max_matches) continue;
        symbols.push(
          toSymbolResult(
            node,
            file.rel,
            args.include_body ? { depth: args.depth, bodyText: fs.doc.text } : { depth: args.depth },
          ),
        );
      }
    }
    return { symbols, ...scope.completeness(), total };
  },
  render(r) {
    const head = `${plural(r.symbols.length, "symbol")}${r.complete ? "" : ` (incomplete: ${r.incomplete_reason})`}`;
    return [head, ...r.symbols.map((s) => renderSymbol(s, ""))].join("\n");
  },
});

/** A symbol and its children, one line each; the path where the symbol carries one (not on children). */
export function renderSymbol(s: SymbolResult, indent: string): string {
  const where =
    s.relative_path !== undefined
      ? `${s.relative_path}:${s.start_line}-${s.end_line}`
      : `lines ${s.start_line}-${s.end_line}`;
  const lines = [`${indent}${s.name_path} [${s.kind}] ${where}`];
  if (s.body !== undefined) lines.push(s.body.replace(/^/gm, `${indent}  | `));
  for (const c of s.children ?? []) lines.push(renderSymbol(c, `${indent}  `));
  return lines.join("\n");
}
