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
  if (s.body !== undefined) {
    // Fenced, its lines as they are: the body can be sent back edited (replace_symbol_body) as
    // shown; a prefix on every line ("  | ") cost 4 characters a line and had to be taken off. The
    // fence is longer than any run of backticks in the body, as in markdown.
    const runs = s.body.match(/`+/g) ?? [];
    const fence = "`".repeat(Math.max(3, ...runs.map((r) => r.length + 1)));
    lines.push(`${indent}${fence}`, s.body, `${indent}${fence}`);
  }
  for (const c of s.children ?? []) lines.push(renderSymbol(c, `${indent}  `));
  return lines.join("\n");
}
