/**
 * SymbolNode → the contract's `Symbol` object (1-based lines, optional body). Nothing its parent
 * says again: no `name` (the last segment of `name_path`), and `relative_path` only on a symbol
 * listed by itself — never on children, nor in a file's overview, whose entry names the file.
 */
import { z } from "zod";
import type { DeclarationSyntax } from "../languages/declaration.js";
import { allLines } from "../text/lines.js";
import { longDocs } from "./doc-summary.js";
import type { SymbolNode } from "./tree.js";

export interface SymbolResult {
  name_path: string;
  kind: string;
  relative_path?: string | undefined;
  start_line: number;
  end_line: number;
  body?: string | undefined;
  /** With a body whose doc comment is long: its first sentence (the comment is left out of the body). */
  docs?: string | undefined;
  docs_lines?: number | undefined;
  detail?: string | undefined;
  children?: SymbolResult[] | undefined;
}

export const symbolSchema: z.ZodType<SymbolResult> = z.lazy(() =>
  z.object({
    name_path: z.string(),
    kind: z.string(),
    relative_path: z
      .string()
      .optional()
      .describe("on a symbol listed by itself; not on children, nor in a file's overview"),
    start_line: z.number().int(),
    end_line: z.number().int(),
    body: z.string().optional(),
    docs: z
      .string()
      .optional()
      .describe(
        "a long doc comment's first sentence; the comment is left out of body (include_docs: true keeps it)",
      ),
    docs_lines: z.number().int().optional().describe("lines of that doc comment"),
    detail: z.string().optional(),
    children: z.array(symbolSchema).optional(),
  }),
);

export interface ToResultOptions {
  depth: number;
  /** File text (BOM stripped) when bodies are wanted. */
  bodyText?: string;
  /**
   * With `bodyText`: the file's declaration syntax, to say a long doc comment in one line (`docs`)
   * instead of in the body. Without it the body holds every doc line.
   */
  summariseDocs?: DeclarationSyntax;
  /** Hides nodes such as locals that overviews leave out. */
  keep?: (n: SymbolNode) => boolean;
}

/**
 * The whole declaration's source text: its docs and attributes (the head of the declaration model,
 * symbols/declaration.ts) and its body. When only indentation precedes it on its first line, that
 * indentation is included, so every line keeps its place relative to the others and the text
 * round-trips through replace_symbol_body unchanged (it brings its own docs, so they are replaced
 * by themselves).
 */
export function sliceRange(text: string, node: SymbolNode, skip?: ReadonlySet<number>): string {
  const lines = allLines(text);
  const { end } = node.range;
  const from = declarationStart(node);
  const first = lines[from.line] ?? "";
  const lead = first.slice(0, from.character);
  const start = lead.trim() === "" ? { line: from.line, character: 0 } : from;
  if (start.line === end.line) return first.slice(start.character, end.character);
  const out = skip?.has(start.line) ? [] : [first.slice(start.character)];
  for (let l = start.line + 1; l < end.line; l++) if (!skip?.has(l)) out.push(lines[l] ?? "");
  out.push((lines[end.line] ?? "").slice(0, end.character));
  return out.join("\n");
}

/** Where the declaration starts: its first doc comment or attribute, else the server's range start. */
export function declarationStart(node: SymbolNode): SymbolNode["range"]["start"] {
  return node.declaration?.head ?? node.range.start;
}

/** `relativePath`: the symbol's file, for a symbol listed by itself; undefined where a parent names it. */
export function toSymbolResult(
  node: SymbolNode,
  relativePath: string | undefined,
  opts: ToResultOptions,
): SymbolResult {
  const r: SymbolResult = {
    name_path: node.namePath,
    kind: node.kind,
    ...(relativePath !== undefined ? { relative_path: relativePath } : {}),
    start_line: node.range.start.line + 1,
    end_line: node.range.end.line + 1,
  };
  if (node.detail) r.detail = node.detail;
  if (opts.bodyText !== undefined) {
    const docs = opts.summariseDocs ? longDocs(opts.bodyText, node, opts.summariseDocs) : null;
    if (docs) {
      r.docs = docs.sentence;
      r.docs_lines = docs.lines.size;
    }
    r.body = sliceRange(opts.bodyText, node, docs?.lines);
  }
  if (opts.depth > 0) {
    const kids = node.children.filter((c) => opts.keep?.(c) ?? true);
    if (kids.length > 0) {
      const childOpts: ToResultOptions = { depth: opts.depth - 1 };
      if (opts.keep) childOpts.keep = opts.keep;
      r.children = kids.map((c) => toSymbolResult(c, undefined, childOpts));
    }
  }
  return r;
}
