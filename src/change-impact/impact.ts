/**
 * What a change (the work tree against a base commit) did to the code's symbols, and which code
 * outside it depends on them: the service behind get_change_impact. Per changed code file the
 * symbols of both texts are compared (symbol-changes.ts); the users outside the change are asked of
 * the language servers for each symbol that was removed or renamed (about the base text, shown as
 * an overlay), whose signature changed, or that is an interface which gained or lost members (with
 * its implementations); a body change gets the count of its users only. Then the errors the
 * servers find now in the changed files and in those users' files.
 */
import { isTestFile } from "../languages/test-files.js";
import type { Project } from "../project/project.js";
import type { Reference } from "../references/sites.js";
import type { CheckedPath } from "../security/sandbox.js";
import { type SymbolNode, walk } from "../symbols/tree.js";
import { allLines } from "../text/positions.js";
import { withBaseSymbols } from "./base-symbols.js";
import { baseTree } from "./base-tree.js";
import { type ChangedFile, changedFiles, pathFilter } from "./changed-files.js";
import { type LineMap, lineMap } from "./line-map.js";
import { MoveFinder } from "./moves.js";
import {
  type AffectedSymbol,
  addImplementations,
  type ChangedEntry,
  FileChecks,
  type ImplementationSites,
  implementationOutline,
} from "./outcome.js";
import {
  compareSymbols,
  type FileSymbolChanges,
  type MemberChange,
  type SymbolChange,
} from "./symbol-changes.js";
import { usersOutsideChange } from "./users.js";

export interface ImpactQuery {
  project: Project;
  base: string;
  paths: readonly string[];
  includeTests: boolean;
  signal: AbortSignal;
}

export interface Impact {
  base: string;
  changed: ChangedEntry[];
  affected: AffectedSymbol[];
  diagnostics: Array<{ relative_path: string; diagnostics: string[] }>;
  gaps: string[];
}

/**
 * Reference requests one call makes at most (removed, signature and interface symbols first, then
 * body changes' counts): each is a server round trip over the reference scope.
 */
export const maxReferenceQueries = 60;

/** Per-call state: the query, the line maps, what is left of the request budget, the gaps met. */
interface Run extends ImpactQuery {
  maps: Map<string, LineMap>;
  left: number;
  gaps: Set<string>;
  skipped: number;
  /** The implementations the base side found, by interface name path (of the file being compared). */
  implementations: Map<string, ImplementationSites>;
}

export async function changeImpact(q: ImpactQuery): Promise<Impact> {
  const started = Date.now();
  const took = (what: string) => q.project.log.debug(`change impact: ${what} at ${Date.now() - started} ms`);
  const tree = await baseTree(q.project.root, q.base, q.project.log, q.signal);
  const files = await changedFiles(q.project, tree, pathFilter(q.project, q.paths), q.signal);
  took(`${files.length} changed files found`);
  const run: Run = {
    ...q,
    maps: new Map(files.map((f) => [f.rel, lineMap(f.before, f.after)])),
    left: maxReferenceQueries,
    gaps: new Set(),
    skipped: 0,
    implementations: new Map(),
  };
  const changed: ChangedEntry[] = [];
  const affected: AffectedSymbol[] = [];
  const bodies: Array<{ entry: ChangedEntry["symbols"][number]; file: ChangedFile; node: SymbolNode }> = [];
  const moves = new MoveFinder();
  for (const file of files) {
    run.implementations.clear();
    const entry: ChangedEntry = {
      relative_path: file.rel,
      status: file.status,
      ...(file.from ? { from: file.from } : {}),
      symbols: [],
    };
    changed.push(entry);
    const found = await fileChanges(run, file, affected);
    took(`${file.rel} compared`);
    if (!found) continue;
    for (const s of found.symbols) {
      const item = { name_path: s.namePath, change: s.change, ...(s.from ? { from: s.from } : {}) };
      entry.symbols.push(item);
      if (s.change === "body" && s.now) bodies.push({ entry: item, file, node: s.now });
      if (s.change === "removed" && s.base && file.before !== null)
        moves.note(entry, item, s.base, file.before);
      if (s.change === "added" && s.now && file.after !== null) moves.note(entry, item, s.now, file.after);
    }
    for (const s of found.symbols.filter((x) => x.change === "signature" && x.now)) {
      affected.push(await onDisk(run, file, s.now as SymbolNode, "signature"));
    }
    for (const i of found.interfaces) affected.push(await interfaceImpact(run, file, i));
  }
  moves.pair(affected);
  took("removed, signature and interface users asked");
  // Body changes last: only the count of their users, while the request budget lasts.
  for (const b of bodies) {
    if (!spend(run)) continue;
    const users = await usersOf(run, b.file, b.node);
    if (users) b.entry.users = users.filter((r) => !r.import).length;
  }
  if (run.skipped > 0) {
    run.gaps.add(
      `${run.skipped} changed symbols' users were not asked for (at most ${maxReferenceQueries} reference requests per call): narrow with paths`,
    );
  }
  took("body changes' users counted");
  const checks = new FileChecks(q.project, q.signal);
  const diagnostics = await checks.errors(dependentFiles(files, affected), run.gaps);
  return {
    base: `${q.base} (${tree.commit.slice(0, 12)})`,
    changed,
    affected,
    diagnostics,
    gaps: [...run.gaps],
  };
}

function spend(run: Run): boolean {
  if (run.left <= 0 || run.signal.aborted) {
    run.skipped++;
    return false;
  }
  run.left--;
  return true;
}

/** The file's symbol changes; the users of its removed and renamed symbols go to `affected`. */
async function fileChanges(
  run: Run,
  file: ChangedFile,
  affected: AffectedSymbol[],
): Promise<FileSymbolChanges | null> {
  const { project } = run;
  const now = file.path ? await project.symbols.file(file.path, run.signal) : null;
  const after = now ? { roots: now.roots, text: now.text } : null;
  if (file.before === null) return compareSymbols(null, after);
  const before = file.before;
  const afterLines = now ? allLines(now.text) : [];
  // A deleted file's base text is shown at its old path: its importers' sites resolve to it.
  const path = file.path ?? gonePath(project, file.rel);
  if (!path) {
    run.gaps.add(`${file.rel} was deleted with its folder: its symbols are not listed`);
    return null;
  }
  return withBaseSymbols(
    project,
    path,
    before,
    async (view) => {
      const changes = compareSymbols({ roots: view.roots, text: before }, after);
      for (const s of changes.symbols) {
        if ((s.change !== "removed" && s.change !== "renamed") || !s.base) continue;
        const a: AffectedSymbol = {
          name_path: s.from ?? s.namePath,
          relative_path: file.rel,
          reason: gone(s),
        };
        if (spend(run)) {
          const users = await usersOutsideChange({
            project,
            session: view.session,
            adapter: view.adapter,
            uri: view.uri,
            abs: path.abs,
            rel: file.rel,
            node: s.base,
            maps: run.maps,
            baseSide: { afterLines, afterRoots: now?.roots ?? [] },
            signal: run.signal,
          });
          if (users.incompleteReason) run.gaps.add(users.incompleteReason);
          a.users = kept(run, users.references);
        }
        affected.push(a);
      }
      for (const i of changes.interfaces) {
        const then = [...walk(view.roots)].find(
          (n) => n.namePath === i.now.namePath && n.kind === i.now.kind,
        );
        if (!then) continue;
        const sites: ImplementationSites = new Map();
        const ask = { uri: view.uri, position: then.selectionRange.start, interfacePath: then.namePath };
        await addImplementations(
          project,
          view.session,
          ask,
          sites,
          { rel: file.rel, roots: view.roots },
          run.signal,
        );
        run.implementations.set(i.now.namePath, sites);
      }
      return changes;
    },
    run.signal,
  );
}

/** The checked path of a file that no longer exists, or null when its folder is gone too. */
function gonePath(project: Project, rel: string): CheckedPath | null {
  try {
    return project.sandbox.resolve(rel);
  } catch {
    return null;
  }
}

const gone = (s: SymbolChange) => (s.change === "renamed" ? "renamed" : "removed");

/** An interface that gained or lost members: its users, and its implementations on both sides. */
async function interfaceImpact(run: Run, file: ChangedFile, i: MemberChange): Promise<AffectedSymbol> {
  const a = await onDisk(run, file, i.now, i.added.length > 0 ? "member_added" : "member_removed");
  const sites = run.implementations.get(i.now.namePath) ?? new Map();
  if (file.path) {
    const opened = await run.project.symbols.open(
      await run.project.symbols.file(file.path, run.signal),
      run.signal,
    );
    const ask = { uri: opened.doc.uri, position: i.now.selectionRange.start, interfacePath: i.now.namePath };
    const own = { rel: file.rel, roots: opened.roots };
    await addImplementations(run.project, opened.session, ask, sites, own, run.signal);
  }
  a.implementations = await implementationOutline(run.project, sites, run.signal);
  return a;
}

/** A symbol of the work tree whose users are listed. */
async function onDisk(
  run: Run,
  file: ChangedFile,
  node: SymbolNode,
  reason: AffectedSymbol["reason"],
): Promise<AffectedSymbol> {
  const a: AffectedSymbol = { name_path: node.namePath, relative_path: file.rel, reason };
  if (!spend(run)) return a;
  // An import names the symbol but depends on no signature: it is still right.
  const users = await usersOf(run, file, node);
  if (users) a.users = users.filter((r) => !r.import);
  return a;
}

async function usersOf(run: Run, file: ChangedFile, node: SymbolNode): Promise<Reference[] | null> {
  if (!file.path) return null;
  const opened = await run.project.symbols.open(
    await run.project.symbols.file(file.path, run.signal),
    run.signal,
  );
  const users = await usersOutsideChange({
    project: run.project,
    session: opened.session,
    adapter: opened.adapter,
    uri: opened.doc.uri,
    abs: file.path.abs,
    rel: file.rel,
    node,
    maps: run.maps,
    signal: run.signal,
  });
  if (users.incompleteReason) run.gaps.add(users.incompleteReason);
  return kept(run, users.references);
}

/** The users a caller wants: without test files' sites when include_tests is false. */
function kept(run: Run, refs: Reference[]): Reference[] {
  if (run.includeTests) return refs;
  return refs.filter((r) => !isTest(run.project, r.relative_path));
}

const isTest = (project: Project, rel: string) => isTestFile(project.pool, rel);

/** The files whose errors are looked at: every changed file still on disk, then the users' files. */
function dependentFiles(files: readonly ChangedFile[], affected: readonly AffectedSymbol[]): string[] {
  const out = new Set<string>();
  for (const f of files) if (f.after !== null) out.add(f.rel);
  for (const a of affected) {
    for (const r of a.users ?? []) if (!r.secret) out.add(r.relative_path);
    for (const i of a.implementations ?? []) out.add(i.split("\n")[0] ?? "");
  }
  out.delete("");
  return [...out];
}
