/**
 * What an edit did to the compiler's view: diagnostics that appeared or disappeared in the files
 * it touched. Positions move with an edit, so a diagnostic is matched by severity, code, message
 * and containing symbol rather than by line.
 */
import { readTextFile } from "../edits/text.js";
import type { DiagnosticsResult } from "../lsp/types.js";
import type { Project } from "../project/project.js";
import { type Diagnostic, toDiagnostic } from "./diagnostic.js";
import { cachedSymbols } from "./symbol-access.js";

/** Edits touching more files (a wide rename) are checked on their first few only. */
export const deltaFileLimit = 3;
const beforeWaitMs = 4000;
const afterWaitMs = 8000;

export interface DiagnosticsSnapshot {
  files: Array<{ abs: string; rel: string }>;
  before: Map<string, Diagnostic[]>;
}

async function current(
  project: Project,
  abs: string,
  rel: string,
  maxWaitMs: number,
): Promise<Diagnostic[] | null> {
  try {
    const { session } = project.pool.sessionFor(abs);
    if (session.status !== "ready") return null;
    const result: DiagnosticsResult = await session.diagnostics(abs, { maxWaitMs });
    if (!result.complete) return null;
    const text = await readTextFile(abs, rel).then(
      (f) => f.text,
      () => "",
    );
    const roots = cachedSymbols(project, abs, text);
    return result.diagnostics.map((d) => ({ ...toDiagnostic(d, roots), relative_path: rel }));
  } catch {
    // No server, a crash or a timeout: the edit stands, only its delta is not known.
    return null;
  }
}

/** Diagnostics of the files an edit is about to touch (those a running server handles). */
export async function snapshotBefore(
  project: Project,
  files: Array<{ abs: string; rel: string }>,
): Promise<DiagnosticsSnapshot> {
  const served = files.filter((f) => project.pool.adapterForPath(f.abs) !== null).slice(0, deltaFileLimit);
  const before = new Map<string, Diagnostic[]>();
  await Promise.all(
    served.map(async (f) => {
      const list = await current(project, f.abs, f.rel, beforeWaitMs);
      if (list) before.set(f.abs, list);
    }),
  );
  return { files: served.filter((f) => before.has(f.abs)), before };
}

const keyOf = (d: Diagnostic) =>
  `${d.relative_path}\0${d.severity}\0${d.code ?? ""}\0${d.message}\0${d.symbol ?? ""}`;

/** Removes from `from` one match of each item of `take`; returns what is left of `from`. */
function minus(from: readonly Diagnostic[], take: readonly Diagnostic[]): Diagnostic[] {
  const counts = new Map<string, number>();
  for (const d of take) counts.set(keyOf(d), (counts.get(keyOf(d)) ?? 0) + 1);
  return from.filter((d) => {
    const n = counts.get(keyOf(d)) ?? 0;
    if (n === 0) return true;
    counts.set(keyOf(d), n - 1);
    return false;
  });
}

/** The delta after the edit was written, or undefined when it cannot be told for sure. */
export async function deltaAfter(
  project: Project,
  snap: DiagnosticsSnapshot,
): Promise<{ new: Diagnostic[]; resolved: Diagnostic[] } | undefined> {
  if (snap.files.length === 0) return undefined;
  const added: Diagnostic[] = [];
  const resolved: Diagnostic[] = [];
  for (const f of snap.files) {
    const after = await current(project, f.abs, f.rel, afterWaitMs);
    if (after === null) return undefined;
    const before = snap.before.get(f.abs) ?? [];
    added.push(...minus(after, before));
    resolved.push(...minus(before, after));
  }
  return { new: added, resolved };
}
