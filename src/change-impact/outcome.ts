/**
 * The parts of a change's impact besides the symbol comparison: the entries it is told in, the
 * implementations of an interface whose members changed, and the errors of the changed files and
 * their users as the servers see them now.
 */
import type { Position } from "vscode-languageserver-protocol";
import { diagnosticLines, toDiagnostic } from "../diagnostics/diagnostic.js";
import type { LspSession } from "../lsp/session.js";
import type { Project } from "../project/project.js";
import { implementationsAt } from "../references/implementations.js";
import type { Reference } from "../references/sites.js";
import { fileSymbols } from "../symbols/access.js";
import { type OutlineFile, outlineFile, outlineLine } from "../symbols/outline.js";
import { toSymbolResult } from "../symbols/result.js";
import { type SymbolNode, walk } from "../symbols/tree.js";
import type { FileStatus } from "./changed-files.js";
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

/** Where an interface's implementations are: file, then the implementing symbols' name paths. */
export type ImplementationSites = Map<string, Set<string>>;

/**
 * Adds the implementations the server finds for the interface at `position` of `uri` to `into`.
 * Asked on both sides of a change: a type that implemented the interface before it gained a
 * member no longer does (Go's structural typing; gopls v0.23.0 lists only types that satisfy it
 * now), and it is the one that needs the member. `own` gives the symbols of the interface's file
 * as the server saw it then (the base text, shown as an overlay), whose name paths are kept.
 */
export async function addImplementations(
  project: Project,
  session: LspSession,
  ask: { uri: string; position: Position; interfacePath: string },
  into: ImplementationSites,
  own: { rel: string; roots: readonly SymbolNode[] },
  signal: AbortSignal,
): Promise<void> {
  if (!session.capabilities.implementationProvider) return;
  const found = await implementationsAt(project, session, ask, signal, {
    rootsOf: (rel) => (rel === own.rel ? own.roots : undefined),
    skip: (rel, impl) => rel === own.rel && impl.namePath === ask.interfacePath,
  });
  for (const { rel, node } of found.found) {
    const names = into.get(rel) ?? new Set<string>();
    names.add(node.namePath);
    into.set(rel, names);
  }
}

/** The implementations as find_implementations lists them, each symbol as the work tree has it now. */
export async function implementationOutline(
  project: Project,
  sites: ImplementationSites,
  signal: AbortSignal,
): Promise<OutlineFile[]> {
  const out: OutlineFile[] = [];
  for (const [rel, names] of sites) {
    let roots: readonly SymbolNode[];
    try {
      const path = project.sandbox.resolve(rel, { mustExist: true, kind: "file" });
      roots = (await project.symbols.file(path, signal)).roots;
    } catch {
      continue;
    }
    const lines = [...walk(roots)]
      .filter((n) => names.has(n.namePath))
      .map((n) => outlineLine(toSymbolResult(n, undefined, { depth: 0 })));
    if (lines.length > 0) out.push(outlineFile(rel, [...new Set(lines)]));
  }
  return out;
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
