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

const alsoAt = " — also at ";

/** Where a diagnostic is: `path:line:column (in Symbol)`. */
function placeOf(d: Diagnostic): string {
  return `${d.relative_path ? `${d.relative_path}:` : ""}${d.line}:${d.column}${d.symbol ? ` (in ${d.symbol})` : ""}`;
}

/**
 * Diagnostics as lines, those that say the same thing (severity, code, source, message) in one:
 * the first one's line, then ` — also at ` and the other places, `path:line:column (in Symbol)`,
 * comma-separated. A signature change breaks its callers with one message: rxjs `popScheduler`
 * with a new required parameter gave 9 lines of `error [2554]: Expected 2 arguments, but got 1.`
 * (783 characters; 410 as one).
 */
export function diagnosticLines(diagnostics: readonly Diagnostic[]): string[] {
  const groups = new Map<string, Diagnostic[]>();
  for (const d of diagnostics) {
    const key = JSON.stringify([d.severity, d.code, d.source, d.message]);
    const group = groups.get(key);
    if (group) group.push(d);
    else groups.set(key, [d]);
  }
  return [...groups.values()].map(([first, ...rest]) => {
    const line = diagnosticLine(first!);
    return rest.length === 0 ? line : `${line}${alsoAt}${rest.map(placeOf).join(", ")}`;
  });
}

/** How many diagnostics a line of `diagnosticLines` stands for. */
export function diagnosticCount(line: string): number {
  const at = line.lastIndexOf(alsoAt);
  return at < 0 ? 1 : 1 + line.slice(at + alsoAt.length).split(", ").length;
}
