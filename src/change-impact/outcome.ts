/**
 * The parts of a change's impact besides the symbol comparison: the entries it is told in, the
 * implementations of an interface whose members changed, and the errors of the changed files and
 * their users as the servers see them now.
 */
import type { Location, LocationLink } from "vscode-languageserver-protocol";
import { diagnosticLines, toDiagnostic } from "../diagnostics/diagnostic.js";
import type { Project } from "../project/project.js";
import { FileViews, normalizeLocations } from "../references/locations.js";
import type { Reference } from "../references/sites.js";
import { fileSymbols } from "../symbols/access.js";
import { type OutlineFile, outlineFile, outlineLine } from "../symbols/outline.js";
import { toSymbolResult } from "../symbols/result.js";
import { type SymbolNode, symbolAt } from "../symbols/tree.js";
import type { ChangedFile, FileStatus } from "./changed-files.js";
import type { SymbolChangeKind } from "./symbol-changes.js";

export interface ChangedEntry {
  relative_path: string;
  status: FileStatus;
  from?: string;
  symbols: Array<{ name_path: string; change: SymbolChangeKind; from?: string; users?: number }>;
}

export type AffectedReason = "removed" | "renamed" | "signature" | "member_added" | "member_removed";

export interface AffectedSymbol {
  name_path: string;
  relative_path: string;
  reason: AffectedReason;
  /** Its users outside the change; absent when they were not asked for. */
  users?: Reference[];
  implementations?: OutlineFile[];
}

/** Implementations of an interface in the work tree, grouped by file as find_implementations gives them. */
export async function implementationsOf(
  project: Project,
  file: ChangedFile,
  node: SymbolNode,
  signal: AbortSignal,
): Promise<OutlineFile[]> {
  if (!file.path) return [];
  const opened = await fileSymbols(project, file.path, signal, false);
  if (!opened.session.capabilities.implementationProvider) return [];
  const raw = await opened.session.request<Location[] | LocationLink[] | null>(
    "textDocument/implementation",
    { textDocument: { uri: opened.doc.uri }, position: node.selectionRange.start },
    { signal },
  );
  const views = new FileViews(project, signal);
  const byFile = new Map<string, string[]>();
  for (const loc of normalizeLocations(raw)) {
    const where = project.sandbox.fromUri(loc.uri);
    if (where.kind !== "file") continue;
    const view = await views.get(where.path);
    const impl = view.roots ? symbolAt(view.roots, loc.range.start) : null;
    if (!impl || (where.path.rel === file.rel && impl.namePath === node.namePath)) continue;
    const line = outlineLine(toSymbolResult(impl, undefined, { depth: 0 }));
    const lines = byFile.get(where.path.rel) ?? [];
    if (!lines.includes(line)) lines.push(line);
    byFile.set(where.path.rel, lines);
  }
  return [...byFile].map(([path, lines]) => outlineFile(path, lines));
}

/** Files whose errors are looked at, at most this many: each is a check by its server. */
export const maxCheckedFiles = 60;

/** The errors of files as their servers see them now, one line each (`diagnosticLines`). */
export class FileChecks {
  constructor(
    private readonly project: Project,
    private readonly signal: AbortSignal,
  ) {}

  async errors(
    rels: readonly string[],
    gaps: Set<string>,
  ): Promise<Array<{ relative_path: string; diagnostics: string[] }>> {
    const out: Array<{ relative_path: string; diagnostics: string[] }> = [];
    if (rels.length > maxCheckedFiles) {
      gaps.add(
        `the errors of ${rels.length - maxCheckedFiles} users' files were not looked at (at most ${maxCheckedFiles})`,
      );
    }
    for (const rel of rels.slice(0, maxCheckedFiles)) {
      if (this.signal.aborted) {
        gaps.add("out of time before every file's errors were looked at");
        break;
      }
      let path: ReturnType<Project["sandbox"]["resolve"]>;
      try {
        path = this.project.sandbox.resolve(rel, { mustExist: true, kind: "file" });
      } catch {
        continue;
      }
      if (this.project.pool.adapterForPath(path.abs) === null) continue;
      const file = await fileSymbols(this.project, path, this.signal, false);
      const result = await file.session.diagnostics(path.abs);
      if (!result.complete) gaps.add(`${rel}: ${result.incompleteReason ?? "diagnostics incomplete"}`);
      const errors = result.diagnostics
        .map((d) => toDiagnostic(d, file.roots))
        .filter((d) => d.severity === "error")
        .sort((a, b) => a.line - b.line || a.column - b.column);
      if (errors.length > 0) out.push({ relative_path: rel, diagnostics: diagnosticLines(errors) });
    }
    return out;
  }
}
