import { z } from "zod";
import { plural } from "../core/words.js";
import { callableKinds } from "../symbols/kinds.js";
import { commentText, rank, type SearchDoc } from "../symbols/rank.js";
import { symbolScope } from "../symbols/scope.js";
import { type SymbolNode, walk } from "../symbols/tree.js";
import { lineStarts } from "../text/lines.js";
import { offsetAt } from "../text/positions.js";
import { defineTool, readOnly } from "./kit/define.js";
import { completeness, excludeTests, kinds, maxAnswerChars, offset, searchScope } from "./kit/params.js";

/** Hits listed per call unless max_matches says otherwise: a ranked list is read from the top. */
const defaultMaxMatches = 20;

interface Hit {
  name_path: string;
  kind: string;
  relative_path: string;
  start_line: number;
  end_line: number;
  detail?: string;
  score: number;
}

const hitSchema = z.object({
  name_path: z.string(),
  kind: z.string(),
  relative_path: z.string(),
  start_line: z.number().int(),
  end_line: z.number().int(),
  detail: z.string().optional(),
  score: z.number().describe("relevance (BM25); higher is better, comparable within one answer only"),
});

export const searchSymbolsTool = defineTool({
  name: "search_symbols",
  title: "Search symbols",
  description:
    "Ranked word search over symbol names and doc comments ('price display'), for when you do not know the name.",
  input: {
    query: z.string().min(1),
    relative_path: searchScope,
    include_kinds: kinds,
    exclude_kinds: kinds,
    max_matches: z.number().int().min(1).default(defaultMaxMatches),
    offset,
    exclude_tests: excludeTests,
    max_answer_chars: maxAnswerChars,
  },
  output: {
    symbols: z.array(hitSchema).describe("hits from offset on, best first, each with its score"),
    ...completeness,
  },
  annotations: readOnly,
  paging: { items: "symbols", noun: "symbol", limit: { param: "max_matches", default: defaultMaxMatches } },
  narrowHint: "Add words to the query, give a relative_path, or use include_kinds.",
  async run(args, ctx) {
    const project = ctx.project;
    const scope = await symbolScope(ctx, args);
    const files = scope.files;
    const docs: SearchDoc<Omit<Hit, "score">>[] = [];
    let done = 0;
    for await (const { file, value: indexed } of scope.each((f) => project.symbols.file(f, ctx.signal))) {
      if (++done % 200 === 0) ctx.progress(`indexed ${done} of ${files.length} files`, done, files.length);
      const starts = lineStarts(indexed.text);
      for (const node of walk(indexed.roots)) {
        // What a function declares (locals, an object literal's keys) is no answer of its own.
        if (node.local || insideCallable(node)) continue;
        if (!scope.passes(node.kind)) continue;
        docs.push({
          item: {
            name_path: node.namePath,
            kind: node.kind,
            relative_path: file.rel,
            start_line: node.range.start.line + 1,
            end_line: node.range.end.line + 1,
            ...(node.detail ? { detail: node.detail } : {}),
          },
          fields: {
            name: node.name,
            path: node.parent?.namePath ?? "",
            kind: node.kind,
            doc: commentText(headText(indexed.text, starts, node)),
          },
        });
      }
    }
    const ranked = rank(args.query, docs);
    const symbols: Hit[] = ranked
      .slice(args.offset, args.offset + args.max_matches)
      .map((r) => ({ ...r.item, score: Math.round(r.score * 1000) / 1000 }));
    return { symbols, ...scope.completeness(), total: ranked.length };
  },
  render(r) {
    const head = `${plural(r.symbols.length, "symbol")}${r.complete ? "" : ` (incomplete: ${r.incomplete_reason})`}`;
    return [
      head,
      ...r.symbols.map(
        (s) => `${s.name_path} [${s.kind}] ${s.relative_path}:${s.start_line}-${s.end_line} (${s.score})`,
      ),
    ].join("\n");
  },
});

/**
 * The text before a symbol's name that belongs to its declaration: doc comments and attributes
 * (from the declaration model's head, else the server's range start) up to the name.
 */
function headText(text: string, starts: readonly number[], node: SymbolNode): string {
  const from = offsetAt(text, node.declaration?.head ?? node.range.start, starts);
  const to = offsetAt(text, node.selectionRange.start, starts);
  return to > from ? text.slice(from, to) : "";
}

function insideCallable(node: SymbolNode): boolean {
  for (let p = node.parent; p; p = p.parent) if (callableKinds.has(p.kind)) return true;
  return false;
}
