import { z } from "zod";
import { plural } from "../core/words.js";
import { genericDeclarationSyntax } from "../languages/declaration.js";
import { inlineDocLines } from "../symbols/doc-summary.js";
import { parseNamePath } from "../symbols/name-path.js";
import { renderSymbol } from "../symbols/render.js";
import { matchSymbols } from "../symbols/resolve.js";
import { type SymbolResult, symbolSchema, type ToResultOptions, toSymbolResult } from "../symbols/result.js";
import { symbolScope } from "../symbols/scope.js";
import type { ScanHit, ScanResult, SymbolFile } from "../symbols/service.js";
import type { SymbolNode } from "../symbols/tree.js";
import { defineTool, readOnly } from "./kit/define.js";
import { completeness, excludeTests, kinds, maxAnswerChars, offset, searchScope } from "./kit/params.js";

/** Symbols listed per call unless max_matches says otherwise. */
const defaultMaxMatches = 100;

export const findSymbolTool = defineTool({
  name: "find_symbol",
  title: "Find symbol",
  description:
    "Symbols by name path, project-wide or under relative_path, with body and children on request. Use it instead of text search.",
  input: {
    name_path_pattern: z
      .string()
      .describe("'foo' at any depth, 'Cls/foo' suffix, '/Cls/foo' absolute, 'foo[1]' 2nd same-named"),
    relative_path: searchScope,
    depth: z.number().int().min(0).default(0),
    include_body: z.boolean().default(false),
    include_docs: z.boolean().default(false).describe(`whole doc comments of over ${inlineDocLines} lines`),
    substring_matching: z.boolean().default(false).describe("last segment as substring"),
    include_kinds: kinds,
    exclude_kinds: kinds,
    max_matches: z.number().int().min(1).default(defaultMaxMatches),
    offset,
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
    (r) => ({ ...r, symbols: r.symbols.map(({ body: _b, docs: _d, docs_lines: _l, ...s }) => s) }),
    (r) => ({ ...r, symbols: r.symbols.map(({ body: _b, children: _c, ...s }) => s) }),
  ],
  async run(args, ctx) {
    const project = ctx.project;
    // A malformed pattern is refused before any file is looked at.
    parseNamePath(args.name_path_pattern);
    const scope = await symbolScope(ctx, args);
    // A folder is scanned in the index's table (no server for files it holds); one file is read.
    const hits: ScanHit[] = [];
    let gaps: ScanResult | undefined;
    if (scope.isFile) {
      for await (const { file, value } of scope.each((f) => project.symbols.file(f, ctx.signal)))
        hits.push({ path: file, roots: value.roots });
    } else {
      const scanned = await project.symbols.scan(
        scope.files,
        args.name_path_pattern,
        args.substring_matching,
        ctx.signal,
      );
      hits.push(...scanned.hits);
      gaps = scanned;
    }
    // Every match is counted (total); only those in [offset, offset + max_matches) are listed.
    let total = 0;
    const matchesOf = (roots: SymbolFile["roots"]) =>
      matchSymbols(roots, args.name_path_pattern, args.substring_matching).filter((n) =>
        scope.passes(n.kind),
      );
    const listed: Array<{ file: SymbolFile | null; rel: string; nodes: SymbolNode[] }> = [];
    let count = 0;
    for (const hit of hits) {
      const found = matchesOf(hit.roots);
      const listedFrom = Math.max(0, args.offset - total);
      const room = args.max_matches - count;
      total += found.length;
      if (room <= 0 || listedFrom >= found.length) continue;
      // Bodies come from the text the tree was built from: the file is read for listed matches only.
      const file = args.include_body ? await project.symbols.file(hit.path, ctx.signal) : null;
      const nodes = (file ? matchesOf(file.roots) : found).slice(listedFrom, listedFrom + room);
      listed.push({ file, rel: hit.path.rel, nodes });
      count += nodes.length;
    }
    const results = (includeDocs: boolean): SymbolResult[] =>
      listed.flatMap(({ file, rel, nodes }) =>
        nodes.map((node) =>
          toSymbolResult(
            node,
            rel,
            file ? bodyOptions(args.depth, file, includeDocs) : { depth: args.depth },
          ),
        ),
      );
    let symbols = results(args.include_docs);
    let hint: string | undefined;
    // Over the budget, long doc comments go before any code does (the wrapper's steps drop bodies).
    if (args.include_docs && JSON.stringify(symbols).length > args.max_answer_chars) {
      symbols = results(false);
      hint = `Long doc comments are given by their first sentence (docs) to fit max_answer_chars; raise it to see them whole.`;
    }
    return { symbols, ...scope.completeness(gaps), total, ...(hint ? { hint } : {}) };
  },
  render(r) {
    const head = `${plural(r.symbols.length, "symbol")}${r.complete ? "" : ` (incomplete: ${r.incomplete_reason})`}`;
    return [head, ...r.symbols.map((s) => renderSymbol(s, ""))].join("\n");
  },
});

/** Bodies from the file's text; a long doc comment said in one line unless `includeDocs`. */
function bodyOptions(depth: number, file: SymbolFile, includeDocs: boolean): ToResultOptions {
  return includeDocs
    ? { depth, bodyText: file.text }
    : { depth, bodyText: file.text, summariseDocs: file.adapter.declarations ?? genericDeclarationSyntax };
}
