/**
 * tsserver's diagnostics of one file, asked directly instead of waited for as pushes: the
 * TypeScript adapter's `checkFile`.
 */
import { pathToFileURL } from "node:url";
import { type Diagnostic, DiagnosticSeverity } from "vscode-languageserver-protocol";
import type { ServerSpec } from "../src/lsp/types.js";

/** tsserver's protocol diagnostic (1-based line/offset, offsets in UTF-16 code units). */
interface TsDiagnostic {
  start: { line: number; offset: number };
  end: { line: number; offset: number };
  text: string;
  code?: number;
  category: string;
  source?: string;
  relatedInformation?: { message: string; span?: { file: string; start: TsLocation; end: TsLocation } }[];
}
type TsLocation = { line: number; offset: number };

const tsPosition = (l: TsLocation) => ({ line: l.line - 1, character: l.offset - 1 });
const tsSeverity: Record<string, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  suggestion: DiagnosticSeverity.Hint,
  message: DiagnosticSeverity.Information,
};

/**
 * The diagnostics tsls would publish for a file (syntactic, semantic, suggestions, converted the
 * way tsls 5.3.0 converts them), asked of tsserver directly with its `*DiagnosticsSync` requests
 * through `typescript.tsserverRequest`. Pushes need no waiting for: tsserver brings the project up
 * to date with every change and watch event sent before the request, then answers. Measured on zod
 * 3.25.76 `src/v3/types.ts` (5,136 lines) after a dependency changed: the pushed sets came as
 * syntactic (empty, +1.2 s) then semantic (32 errors, +5.9 s) with no end signal, so a quiet
 * period settled on the empty set; this check answered the 32 errors in one request.
 */
export async function checkFileNow(
  run: Parameters<NonNullable<ServerSpec["checkFile"]>>[0],
  uri: string,
  opts: Parameters<NonNullable<ServerSpec["checkFile"]>>[2],
): Promise<Diagnostic[]> {
  const out: Diagnostic[] = [];
  for (const command of [
    "syntacticDiagnosticsSync",
    "semanticDiagnosticsSync",
    "suggestionDiagnosticsSync",
  ]) {
    const res = await run<{ body?: TsDiagnostic[] } | null>(
      "typescript.tsserverRequest",
      [command, { file: uri, includeLinePosition: false }],
      opts,
    );
    for (const d of res?.body ?? []) {
      const related = (d.relatedInformation ?? []).flatMap((r) =>
        r.span
          ? [
              {
                location: {
                  uri: pathToFileURL(r.span.file).href,
                  range: { start: tsPosition(r.span.start), end: tsPosition(r.span.end) },
                },
                message: r.message,
              },
            ]
          : [],
      );
      out.push({
        range: { start: tsPosition(d.start), end: tsPosition(d.end) },
        message: d.text,
        severity: tsSeverity[d.category] ?? DiagnosticSeverity.Error,
        ...(d.code === undefined ? {} : { code: d.code }),
        source: d.source ?? "typescript",
        ...(related.length > 0 ? { relatedInformation: related } : {}),
      });
    }
  }
  return out;
}
