/**
 * The contract's Diagnostic: LSP diagnostics with 1-based start positions and their containing
 * symbol. No end position: an agent reads and fixes the line (tsc gives none anyway).
 */
import type { Diagnostic as LspDiagnostic } from "vscode-languageserver-protocol";
import { z } from "zod";
import { probedAdapters } from "../../language-servers/index.js";
import { containingSymbol, type SymbolNode } from "../symbols/tree.js";

export const severities = ["error", "warning", "information", "hint"] as const;

export const diagnosticSchema = z.object({
  severity: z.enum(severities),
  line: z.number().int().describe("1-based"),
  column: z.number().int().describe("1-based, UTF-16 code units"),
  message: z.string(),
  code: z.string().optional(),
  source: z
    .string()
    .optional()
    .describe(
      "which check reported it, where a language has several (rustc: cargo check; rust-analyzer: the server's own analysis); absent for TypeScript, checked by tsserver alone",
    ),
  symbol: z.string().optional().describe("name path of the innermost symbol containing it"),
  relative_path: z.string().optional().describe("set where diagnostics of several files are listed together"),
});
export type Diagnostic = z.infer<typeof diagnosticSchema>;

/** Sources that never tell two checks apart: each adapter names its own (`soleDiagnosticSources`). */
const soleCheckers = new Set(probedAdapters.flatMap((a) => a.soleDiagnosticSources ?? []));

export function toDiagnostic(d: LspDiagnostic, roots: readonly SymbolNode[] | null): Diagnostic {
  const out: Diagnostic = {
    severity: severities[(d.severity ?? 1) - 1] ?? "error",
    line: d.range.start.line + 1,
    column: d.range.start.character + 1,
    message: typeof d.message === "string" ? d.message : d.message.value,
  };
  if (d.code !== undefined) out.code = String(d.code);
  if (d.source && !soleCheckers.has(d.source)) out.source = d.source;
  const sym = roots ? containingSymbol(roots, d.range.start) : null;
  if (sym) out.symbol = sym.namePath;
  return out;
}

/**
 * One diagnostic as one line, `path:line:column severity [code]: message (in Symbol)`: the form of an
 * edit's delta in both the text and the JSON (an object per diagnostic repeated six keys per entry:
 * issue 19), and of its text elsewhere.
 */
export function diagnosticLine(d: Diagnostic): string {
  const code = d.code ? ` [${d.code}]` : "";
  const sym = d.symbol ? ` (in ${d.symbol})` : "";
  const where = d.relative_path ? `${d.relative_path}:` : "";
  const source = d.source ? ` ${d.source}` : "";
  return `${where}${d.line}:${d.column} ${d.severity}${code}${source}: ${d.message}${sym}`;
}
