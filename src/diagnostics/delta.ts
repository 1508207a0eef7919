/**
 * What an edit did to the compiler's view: diagnostics that appeared or disappeared in the files it
 * touched, in the files that refer to the symbols it changed, and in any file whose published set
 * changed meanwhile (rust-analyzer's `cargo check` reports errors where nobody looked: a
 * `macro_rules!` body a rename did not reach). "Before" is taken just before the write, once
 * pending checks have settled; "after" once the checks this write started have run, so one edit's
 * errors are not credited to the next.
 */

import { stat } from "node:fs/promises";
import type { Location, Diagnostic as LspDiagnostic, Position } from "vscode-languageserver-protocol";
import { log } from "../core/log.js";
import { plural } from "../core/words.js";
import type { LspSession } from "../lsp/session.js";
import type { DiagnosticsResult } from "../lsp/types.js";
import type { Project } from "../project/project.js";
import { normalizeLocations } from "../references/locations.js";
import { cachedSymbols } from "../symbols/access.js";
import { readTextFile } from "../text/positions.js";
import { type Diagnostic, toDiagnostic } from "./diagnostic.js";

const deltaLog = log.child("delta");

/** Files whose diagnostics are compared one by one (touched first, then referencing files). */
export const deltaFileLimit = 25;
/**
 * The same for an edit that must be proven before it is kept (verify): a caller asking for proof
 * waits longer rather than get a refusal for a rename of a symbol used in 30 files.
 */
export const verifyFileLimit = 60;
/** Files asked at once: each is opened, and a server keeps a bounded number open (Documents). */
const filesAtOnce = 16;
/** Bound on the "before" side, all files together (each waits in parallel). */
const beforeBudgetMs = 15_000;
/** Bound on the "after" side, all files together. */
const afterBudgetMs = 30_000;
/**
 * Bound on one references request for a changed symbol. A check that must cover everything
 * (verify) waits as long as the server's own request bound instead: rust-analyzer's first
 * references after its start took over 10 s on the 5-file rust-basic fixture (cache priming off),
 * and a refusal for that costs the caller more than the wait.
 */
const referencesTimeoutMs = 10_000;

interface File {
  abs: string;
  rel: string;
}

/** A symbol an edit changes (its body, signature or name), as the server knew it before the write. */
export interface ChangedSymbol {
  session: LspSession;
  uri: string;
  position: Position;
}

export interface DiagnosticsSnapshot {
  files: File[];
  before: Map<string, Diagnostic[]>;
  /** Every published set per session before the write (keys: normalised URIs). */
  published: Map<LspSession, Map<string, LspDiagnostic[]>>;
  /** Files in scope that could not be compared, and why. */
  skipped: number;
  reasons: string[];
}

export interface DiagnosticsDelta {
  new: Diagnostic[];
  resolved: Diagnostic[];
  checked_count: number;
  complete: boolean;
  incomplete_reason?: string;
}

/**
 * One file's diagnostics now, mapped to the contract. `overlaid`: the text the server is shown
 * instead of the disk's (an overlay), for naming the symbols the diagnostics fall in.
 */
async function current(
  project: Project,
  f: File,
  maxWaitMs: number,
  overlaid?: string | null,
): Promise<{ list: Diagnostic[] } | { reason: string }> {
  // A file the edit creates has no errors before it, one it deletes (a move's old path) none after:
  // both are compared, not skipped ("no diagnostics" for a new file hid its errors).
  if (overlaid === null || (overlaid === undefined && !(await exists(f.abs)))) return { list: [] };
  try {
    const { session } = project.pool.sessionFor(f.abs);
    if (session.status !== "ready") return { reason: `the ${session.spec.id} server is not ready` };
    const text =
      overlaid ??
      (await readTextFile(f.abs, f.rel).then(
        (t) => t.text,
        () => "",
      ));
    // Settled per server by the session (tsserver: an on-request check of the file, so a big
    // file's semantic errors are not missed behind an earlier syntax-only publish).
    const t0 = Date.now();
    const result: DiagnosticsResult = await session.diagnostics(f.abs, { maxWaitMs: Math.max(1, maxWaitMs) });
    deltaLog.debug(`${f.rel}: ${result.diagnostics.length} diagnostics in ${Date.now() - t0} ms`);
    if (!result.complete) return { reason: `${f.rel}: ${result.incompleteReason ?? "still pending"}` };
    return { list: mapped(project, f, result.diagnostics, text) };
  } catch {
    // No server, a crash or a timeout: the edit stands, only this file's delta is not known.
    return { reason: `${f.rel}: no diagnostics (server unavailable)` };
  }
}

const exists = (abs: string) =>
  stat(abs).then(
    (st) => st.isFile(),
    () => false,
  );

function mapped(project: Project, f: File, list: readonly LspDiagnostic[], text: string): Diagnostic[] {
  const roots = cachedSymbols(project, f.abs, text);
  return list.map((d) => ({ ...toDiagnostic(d, roots), relative_path: f.rel }));
}

/** Files that refer to the changed symbols, asked before the write (positions are the old text's). */
async function referencingFiles(
  project: Project,
  symbols: readonly ChangedSymbol[],
  bounded: boolean,
): Promise<{ files: File[]; failed?: string }> {
  const out: File[] = [];
  let failed: string | undefined;
  for (const s of symbols) {
    try {
      const raw = await s.session.request<Location[] | null>(
        "textDocument/references",
        // With the declaration: TypeScript 7's native server leaves import sites out otherwise, and a
        // file that only imports the symbol is one whose errors change. The declaring file is touched anyway.
        { textDocument: { uri: s.uri }, position: s.position, context: { includeDeclaration: true } },
        bounded ? { timeoutMs: referencesTimeoutMs } : {},
      );
      for (const loc of normalizeLocations(raw)) {
        const where = project.sandbox.fromUri(loc.uri);
        // A secret file's diagnostics would show its content; outside files are not ours.
        if (where.kind === "file") out.push({ abs: where.path.abs, rel: where.path.rel });
      }
    } catch (e) {
      deltaLog.debug(`references for the delta failed: ${e instanceof Error ? e.message : String(e)}`);
      // The delta then covers the touched files only, and says so.
      failed = "the files referring to the changed symbol could not be found (references request failed)";
    }
  }
  return failed ? { files: out, failed } : { files: out };
}

function unique(files: readonly File[]): File[] {
  const seen = new Set<string>();
  return files.filter((f) => !seen.has(f.abs) && seen.add(f.abs));
}

/**
 * Diagnostics of the files an edit is about to touch and of the files referring to the symbols it
 * changes (those a running server handles), plus every published set.
 */
export async function snapshotBefore(
  project: Project,
  touched: readonly File[],
  changed: { symbols: readonly ChangedSymbol[]; left?: string } = { symbols: [] },
  opts: { fileLimit?: number; wholeOrNothing?: boolean } = {},
): Promise<DiagnosticsSnapshot> {
  const fileLimit = opts.fileLimit ?? deltaFileLimit;
  const referring = await referencingFiles(project, changed.symbols, opts.wholeOrNothing !== true);
  const scope = unique([...touched, ...referring.files]).filter(
    (f) => project.pool.adapterForPath(f.abs) !== null,
  );
  const files = scope.slice(0, fileLimit);
  const reasons: string[] = [
    ...(referring.failed ? [referring.failed] : []),
    ...(changed.left ? [changed.left] : []),
  ];
  if (scope.length > files.length)
    reasons.push(
      `${scope.length - files.length} of ${plural(scope.length, "file")} in scope were not checked (at most ${fileLimit} are)`,
    );
  // A check that must cover everything is over before it starts (verify refuses).
  if (opts.wholeOrNothing && reasons.length > 0)
    return { files: [], before: new Map(), published: new Map(), skipped: scope.length, reasons };
  const before = new Map<string, Diagnostic[]>();
  const deadline = Date.now() + beforeBudgetMs;
  const results = await inBatches(files, (f) => current(project, f, deadline - Date.now()));
  files.forEach((f, i) => {
    const r = results[i]!;
    if ("list" in r) before.set(f.abs, r.list);
    else reasons.push(r.reason);
  });
  const published = new Map<LspSession, Map<string, LspDiagnostic[]>>();
  for (const f of files) {
    try {
      const { session } = project.pool.sessionFor(f.abs);
      if (!published.has(session)) published.set(session, session.publishedDiagnostics());
    } catch {
      // no server for it: nothing published
    }
  }
  const compared = files.filter((f) => before.has(f.abs));
  return { files: compared, before, published, skipped: scope.length - compared.length, reasons };
}

/** Positions move with an edit: a diagnostic is the same when its file, severity, code and message are. */
const keyOf = (d: Diagnostic) => `${d.relative_path}\0${d.severity}\0${d.code ?? ""}\0${d.message}`;

/**
 * Removes from `from` one match of each item of `take`; returns what is left of `from`. Among
 * same-key candidates the one in the same symbol, then the nearest line, is matched first.
 */
export function minus(from: readonly Diagnostic[], take: readonly Diagnostic[]): Diagnostic[] {
  const pool = new Map<string, Diagnostic[]>();
  for (const d of take) {
    const k = keyOf(d);
    pool.set(k, [...(pool.get(k) ?? []), d]);
  }
  const left: Diagnostic[] = [];
  // Exact places first, so that a moved duplicate does not steal an unmoved one's match.
  const order = [...from.keys()].sort((a, b) => rank(from[a]!, pool) - rank(from[b]!, pool));
  const matched = new Set<number>();
  for (const i of order) {
    const d = from[i]!;
    const candidates = pool.get(keyOf(d));
    if (!candidates || candidates.length === 0) continue;
    let best = 0;
    for (let j = 1; j < candidates.length; j++) {
      if (distance(d, candidates[j]!) < distance(d, candidates[best]!)) best = j;
    }
    candidates.splice(best, 1);
    matched.add(i);
  }
  from.forEach((d, i) => {
    if (!matched.has(i)) left.push(d);
  });
  return left;
}

function distance(a: Diagnostic, b: Diagnostic): number {
  return (
    (a.symbol === b.symbol ? 0 : 1_000_000) +
    Math.abs(a.line - b.line) * 1_000 +
    Math.abs(a.column - b.column)
  );
}

function rank(d: Diagnostic, pool: Map<string, Diagnostic[]>): number {
  const c = pool.get(keyOf(d)) ?? [];
  return Math.min(Number.MAX_SAFE_INTEGER, ...c.map((x) => distance(d, x)));
}

/** `fn` over `items`, `filesAtOnce` at a time, results in order. */
async function inBatches<T, R>(items: readonly T[], fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += filesAtOnce)
    out.push(...(await Promise.all(items.slice(i, i + filesAtOnce).map(fn))));
  return out;
}

/**
 * The delta after the edit, or undefined when no file could be compared at all. `overlaid`: the
 * text each file has while the server is shown it unsaved (null: a file the edit deletes), for a
 * check before the write (verify); otherwise the disk's.
 */
export async function deltaAfter(
  project: Project,
  snap: DiagnosticsSnapshot,
  overlaid?: ReadonlyMap<string, string | null>,
): Promise<DiagnosticsDelta | undefined> {
  const added: Diagnostic[] = [];
  const resolved: Diagnostic[] = [];
  const checked: string[] = [];
  const reasons = [...snap.reasons];
  let skipped = snap.skipped;
  const deadline = Date.now() + afterBudgetMs;
  const afters = await inBatches(snap.files, (f) =>
    current(project, f, deadline - Date.now(), overlaid?.get(f.abs)),
  );
  snap.files.forEach((f, i) => {
    const r = afters[i]!;
    if (!("list" in r)) {
      reasons.push(r.reason);
      skipped++;
      return;
    }
    const before = snap.before.get(f.abs) ?? [];
    added.push(...minus(r.list, before));
    resolved.push(...minus(before, r.list));
    checked.push(f.rel);
  });
  // Files nobody asked about whose published set changed since the snapshot (after the checks of
  // the files above have settled, so the checker's run for this edit has ended).
  const done = new Set(snap.files.map((f) => f.abs));
  for (const [session, was] of snap.published) {
    const nowAll = session.publishedDiagnostics();
    // A checker that publishes for the whole workspace (cargo check) leaves clean files unpublished,
    // so a first publish after the edit is news. A push server that checks open files only
    // (tsserver) publishes a file first when some call opened it: no baseline means unknown, and
    // crediting its errors to this edit was wrong (seen with a 300-error file opened by a parallel call).
    const wholeWorkspace = session.spec.pushedAlongsidePull !== undefined;
    for (const [uri, now] of nowAll) {
      const baseline = was.get(uri);
      if (baseline === undefined && !wholeWorkspace) continue;
      const old = baseline ?? [];
      if (old === now) continue;
      const where = project.sandbox.fromUri(uri);
      if (where.kind !== "file" || done.has(where.path.abs)) continue;
      done.add(where.path.abs);
      const f = { abs: where.path.abs, rel: where.path.rel };
      const text =
        overlaid?.get(f.abs) ??
        (await readTextFile(f.abs, f.rel).then(
          (t) => t.text,
          () => "",
        ));
      const b = mapped(project, f, old, text);
      const a = mapped(project, f, now, text);
      added.push(...minus(a, b));
      resolved.push(...minus(b, a));
      checked.push(f.rel);
    }
    for (const [uri, old] of was) {
      if (old.length === 0 || nowAll.has(uri)) continue;
      const where = project.sandbox.fromUri(uri);
      if (where.kind !== "file" || done.has(where.path.abs)) continue;
      done.add(where.path.abs);
      resolved.push(...mapped(project, { abs: where.path.abs, rel: where.path.rel }, old, ""));
      checked.push(where.path.rel);
    }
  }
  if (checked.length === 0) return undefined;
  const delta: DiagnosticsDelta = {
    new: added,
    resolved,
    checked_count: checked.length,
    complete: skipped === 0 && reasons.length === 0,
  };
  if (!delta.complete)
    delta.incomplete_reason = reasons.slice(0, 3).join("; ") || `${skipped} files not checked`;
  return delta;
}
