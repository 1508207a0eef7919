/** The text form of a Symbol, shared by the tools that list symbols. */
import type { SymbolResult } from "./result.js";

/** A symbol and its children, one line each; the path where the symbol carries one (not on children). */
export function renderSymbol(s: SymbolResult, indent: string): string {
  const where =
    s.relative_path !== undefined
      ? `${s.relative_path}:${s.start_line}-${s.end_line}`
      : `lines ${s.start_line}-${s.end_line}`;
  const lines = [`${indent}${s.name_path} [${s.kind}] ${where}`];
  if (s.docs !== undefined)
    lines.push(
      `${indent}  docs (${s.docs_lines ?? "?"} lines, not shown; include_docs: true for all): ${s.docs}`,
    );
  if (s.body !== undefined) lines.push(s.body.replace(/^/gm, `${indent}  | `));
  for (const c of s.children ?? []) lines.push(renderSymbol(c, `${indent}  `));
  return lines.join("\n");
}
