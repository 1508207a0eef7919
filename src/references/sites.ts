/**
 * The sites of a symbol's references as find_referencing_symbols and safe_delete_symbol both use
 * them: asked of the server over the reference scope, each site once by its place, with its
 * containing symbol, its line and whether it is an import. The answer's shapes live with the tool.
 */
import type { Location } from "vscode-languageserver-protocol";
import type { LanguageAdapter } from "../languages/adapter.js";
import type { LspSession } from "../lsp/session.js";
import { pathToUri } from "../lsp/uri.js";
import type { Project } from "../project/project.js";
import type { CheckedPath, Located, Sandbox } from "../security/sandbox.js";
import { answeringProject, type ProjectAnswer } from "../servers/answering-project.js";
import { containingSymbol, type SymbolNode } from "../symbols/tree.js";
import { snippet } from "../text/snippet.js";
import { isImportSite } from "./import-sites.js";
import { keepSites, watchedFile } from "./known-sites.js";
import { type FileView, FileViews, normalizeLocations, readAheadWidth, samePosition } from "./locations.js";
import { askPerBatch, referenceScope, type ScopeQuery } from "./scope.js";
import type { ScopeAhead } from "./scope-ahead.js";
import { referenceScopeCache } from "./scope-cache.js";
import { factKey, type SiteFacts, type SiteTextCache, siteTextCache } from "./site-text-cache.js";

/**
 * One site as collectReferences finds it (the internal, flat form: safe_delete_symbol and the kind
 * filters read it). The answer gives these by file (`groupReferences`), a line per site, so no
 * site repeats its file or its container's kind and span.
 */
export interface Reference {
  relative_path: string;
  line: number;
  column: number;
  /** Its kind is what include_kinds / exclude_kinds filter on. */
  containing_symbol: { name_path: string; kind: string } | null;
  /** The site's own line, trimmed (context_lines 0); with context_lines > 0 the numbered lines around it. */
  snippet?: string;
  /** The site is in an import/export-from statement: counted per file, not quoted. */
  import?: true;
  /** The project this site was found in, when not the symbol's own (null: in no project). */
  project?: string | null;
  /** The site is in a secret file: only its place is known. */
  secret?: true;
}

export interface ReferenceQuery {
  project: Project;
  session: LspSession;
  adapter: LanguageAdapter;
  uri: string;
  /** The defining file. */
  abs: string;
  node: SymbolNode;
  contextLines: number;
  signal?: AbortSignal;
  /** The scope started before the symbol was resolved (scope-ahead.ts), used when it is this one's. */
  ahead?: ScopeAhead;
}

export interface ReferenceAnswer {
  /** In path order; in each file the import sites first, then the others by line and column. */
  references: Reference[];
  /** The defining file's project; absent when the adapter cannot tell. */
  project?: ProjectAnswer;
  /** Set when files that may reference the symbol were not checked. */
  incompleteReason?: string;
}

/**
 * Every reference to a symbol, declaration excluded. The answer depends on the disk only, not on
 * what earlier calls opened (see `referenceScope`), and each site outside the defining
 * file's project says which project it came from.
 */
export async function collectReferences(q: ReferenceQuery): Promise<ReferenceAnswer> {
  const sq: ScopeQuery = {
    project: q.project,
    session: q.session,
    adapter: q.adapter,
    file: { abs: q.abs, uri: q.uri },
    name: q.node.name,
    ...(q.signal ? { signal: q.signal } : {}),
  };
  const early =
    q.ahead && q.ahead.abs === q.abs && q.ahead.name === q.node.name ? await q.ahead.scope : undefined;
  const prepared = early?.session === q.session ? early.prepared : await referenceScope(sq);
  const scope = prepared.scope;
  const incompleteReason = prepared.unchecked;
  const ask = (file: { abs: string; uri: string }) =>
    answeringProject({
      sandbox: q.project.sandbox,
      adapter: q.adapter,
      server: q.session,
      file,
      log: q.project.log,
      ...(q.signal ? { signal: q.signal } : {}),
    });
  /** A site file's project when not the defining file's own (undefined: it is, or unknown). */
  const otherProject = (file: { abs: string; uri: string }) =>
    ask(file).then((a) => (a && scope && a.project !== scope.project ? a.project : undefined));
  const projects = new Map<string, Promise<string | null | undefined>>();
  const request = () =>
    q.session.request<Location[] | null>(
      "textDocument/references",
      {
        textDocument: { uri: q.uri },
        position: q.node.selectionRange.start,
        context: { includeDeclaration: q.adapter.referencesWithDeclaration === true },
      },
      q.signal ? { signal: q.signal } : {},
    );
  const scopeCache = referenceScopeCache(q.project.root, q.session);
  const mark = scopeCache.mark;
  const sitesKey = `${q.abs}:${q.node.selectionRange.start.line}:${q.node.selectionRange.start.character}:${q.node.name}`;
  const outsideAbs = prepared.outside.map((p) => p.abs);
  // Under overlays (verify, a change review's base text) the sites describe text the disk does not
  // hold: what disk-state calls kept is not theirs, and theirs is not kept.
  const overlaid = q.session.seesOverlays;
  const known = overlaid ? undefined : scopeCache.sitesOf(sitesKey, outsideAbs);
  const askBatch = async (batch: readonly CheckedPath[]) => {
    for (const path of batch) {
      const found = otherProject({ abs: path.abs, uri: pathToUri(path.abs) });
      projects.set(path.rel, found);
      await found;
    }
    return request();
  };
  let batches: (Location[] | null)[];
  if (known) {
    // Nothing reported changed since the same question was answered: the sites and projects found
    // then in watched folders still hold, and only outside files whose folder is not watched are
    // opened and asked again, with the request (ts-projects plus 30 loose files naming the symbol:
    // 33 project questions and 2 requests per warm call before; warm-references-traffic.test.ts).
    for (const [rel, project] of known.projects) projects.set(rel, Promise.resolve(project));
    const unwatched = prepared.outside.filter((p) => !watchedFile(q.session, p.abs));
    batches = [[...known.locations], ...(await askPerBatch(sq, unwatched, askBatch))];
  } else {
    batches = await askPerBatch(sq, prepared.outside, askBatch);
  }
  // Batches overlap (the defining project's sites come back every time): one site, once.
  const seen = new Set<string>();
  const raw = batches
    .flatMap((b) => normalizeLocations(b))
    .filter((l) => {
      const key = `${l.uri}:${l.range.start.line}:${l.range.start.character}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  const kept = siteTextCache(q.session);
  const views = new FileViews(q.project, q.signal, kept);
  const projectOf = (rel: string, abs: string, uri: string): Promise<string | null | undefined> => {
    if (scope === undefined || scope.files?.has(rel)) return Promise.resolve(undefined);
    let p = projects.get(rel);
    if (!p) {
      p = otherProject({ abs, uri });
      projects.set(rel, p);
    }
    return p;
  };
  const placed = oncePerPlace(raw, q.project.sandbox, kept);
  const shown = await siteFacts(q, placed, views, kept);
  const refs: Reference[] = [];
  for (const [i, { loc, where }] of placed.entries()) {
    if (loc.uri === q.uri && samePosition(loc.range.start, q.node.selectionRange.start)) continue;
    if (where.kind === "secret") {
      // Its place only: a snippet or containing symbol would show the secret file's content.
      refs.push({
        relative_path: where.rel,
        line: loc.range.start.line + 1,
        column: loc.range.start.character + 1,
        containing_symbol: null,
        secret: true,
      });
      continue;
    }
    const path = where.path;
    const facts = shown.facts[i];
    if (!facts) continue;
    if (facts.declares) continue;
    const project = await projectOf(path.rel, path.abs, loc.uri);
    if (facts.import) {
      // It only names the symbol: the compact forms count it per file instead of quoting it.
      refs.push({
        relative_path: path.rel,
        line: loc.range.start.line + 1,
        column: loc.range.start.character + 1,
        containing_symbol: null,
        import: true,
        ...(project !== undefined ? { project } : {}),
      });
      continue;
    }
    refs.push({
      relative_path: path.rel,
      line: loc.range.start.line + 1,
      column: loc.range.start.character + 1,
      containing_symbol: facts.container
        ? { name_path: facts.container.namePath, kind: facts.container.kind }
        : null,
      snippet: shown.snippets[i] ?? facts.line,
      ...(project !== undefined ? { project } : {}),
    });
  }
  if (!known && !overlaid && !incompleteReason && !q.signal?.aborted) {
    await keepSites(q, scopeCache, mark, sitesKey, raw, projects, prepared.outside);
    if (early?.session === q.session) early.keep();
  }
  // Import sites first in each file: the answer lists them as one `imports` list per file, and a
  // page (offset) is a prefix of this order.
  const references = refs.sort(
    (a, b) =>
      a.relative_path.localeCompare(b.relative_path) ||
      Number(b.import === true) - Number(a.import === true) ||
      a.line - b.line ||
      a.column - b.column,
  );
  return {
    references,
    ...(scope ? { project: scope } : {}),
    ...(incompleteReason ? { incompleteReason } : {}),
  };
}

/**
 * What each placed site shows (by its index in `placed`), and with context lines its snippet.
 * File by file, several at once (a site file whose symbols neither memory nor the index holds is
 * asked of its server, and the native server answers several such requests at once); a file
 * whose sites' facts are all kept is not read, split or given symbols, and a file's symbols and
 * lines are let go as soon as its sites are done. Held until the end of the call instead, the
 * 5,000 site files' trees and lines of the generated 5k project's first references after a
 * restart were live together (scalpel's heap peaked at 263 MB used).
 */
async function siteFacts(
  q: ReferenceQuery,
  placed: ReturnType<typeof oncePerPlace>,
  views: FileViews,
  kept: SiteTextCache,
): Promise<{ facts: (SiteFacts | undefined)[]; snippets: (string | undefined)[] }> {
  const facts: (SiteFacts | undefined)[] = [];
  const snippets: (string | undefined)[] = [];
  const byFile = new Map<string, { path: CheckedPath; sites: number[] }>();
  for (const [i, { where }] of placed.entries()) {
    if (where.kind !== "file") continue;
    let f = byFile.get(where.path.abs);
    if (!f) {
      f = { path: where.path, sites: [] };
      byFile.set(where.path.abs, f);
    }
    f.sites.push(i);
  }
  const files = [...byFile.values()];
  const startOf = (i: number) => (placed[i] as (typeof placed)[number]).loc.range.start;
  const work = async () => {
    for (let f = files.shift(); f; f = files.shift()) {
      const known = q.contextLines > 0 ? undefined : kept.factsOf(f.path.abs);
      let missing = known === undefined;
      for (const i of f.sites) {
        facts[i] = known?.get(factKey(startOf(i), q.node));
        if (!facts[i]) missing = true;
      }
      if (missing) {
        const view = await views.get(f.path);
        for (const i of f.sites) {
          const pos = startOf(i);
          if (q.contextLines > 0) snippets[i] = snippet(view.lines, pos.line, q.contextLines);
          if (facts[i]) continue;
          const found = factsOf(view, pos, q);
          facts[i] = found;
          if (view.mark !== undefined) kept.keepFacts(view.mark, f.path.abs, factKey(pos, q.node), found);
        }
      }
      views.forget(f.path);
    }
  };
  await Promise.all(Array.from({ length: Math.min(readAheadWidth, files.length) }, work));
  return { facts, snippets };
}

/** What the site at `pos` shows, worked out from its file's symbols and lines. */
function factsOf(
  view: FileView,
  pos: Location["range"]["start"],
  q: Pick<ReferenceQuery, "adapter" | "node">,
): SiteFacts {
  const container = view.roots ? containingSymbol(view.roots, pos) : null;
  return {
    // Asked with the declaration (see `referencesWithDeclaration`), the server also lists the
    // symbol's other declarations (overload signatures): sites where a symbol of its name and kind
    // is declared, which an answer without the declaration leaves out.
    declares:
      q.adapter.referencesWithDeclaration === true &&
      view.roots !== null &&
      declares(view.roots, pos, q.node),
    import: isImportSite(view.lines, pos.line),
    container: container ? { namePath: container.namePath, kind: container.kind } : null,
    // Copied out of the file's text (SiteFacts.line): the call holds every site's facts until it
    // answers, and as slices they kept each site file's whole text alive with them. Measured on
    // the generated 20k project's first references (native): a heap snapshot midway held 20 MB of
    // texts through 5,135 sites' lines, and the call's peak RSS fell from 287 to 255 MB.
    line: JSON.parse(JSON.stringify(siteLine(view.lines[pos.line] ?? "", pos.character))) as string,
  };
}

/** Where a URI points, by the places kept between calls (`kept`) or else the sandbox, which is asked once. */
export function placeOf(sandbox: Sandbox, kept?: SiteTextCache): (uri: string) => Located {
  const mark = kept?.mark;
  return (uri) => {
    let where = kept?.place(uri, sandbox);
    if (!where) {
      where = sandbox.fromUri(uri);
      if (mark !== undefined) kept?.keepPlace(mark, uri, sandbox, where);
    }
    return where;
  };
}

/**
 * The sites inside the project, each once by its place (file, line, column): a server may name one
 * file by two URIs — a symlinked alias of the root, or a differently percent-encoded path — which
 * the URI-level check in `collectReferences` cannot see.
 */
export function oncePerPlace(
  locations: readonly Location[],
  sandbox: Sandbox,
  kept?: SiteTextCache,
): Array<{ loc: Location; where: Exclude<Located, { kind: "outside" }> }> {
  const placed = new Set<string>();
  const out: Array<{ loc: Location; where: Exclude<Located, { kind: "outside" }> }> = [];
  const locate = placeOf(sandbox, kept);
  for (const loc of locations) {
    const where = locate(loc.uri);
    if (where.kind === "outside") continue;
    const rel = where.kind === "file" ? where.path.rel : where.rel;
    const place = `${rel}:${loc.range.start.line}:${loc.range.start.character}`;
    if (placed.has(place)) continue;
    placed.add(place);
    out.push({ loc, where });
  }
  return out;
}

/**
 * Whether a symbol of `like`'s name and kind is declared at `pos` (its identifier starts there).
 * Descends only into symbols whose range (or a part's) holds the position: asked once per site,
 * a walk of every symbol of the file (`symbolAt`) was the largest own cost of a warm call — 37 ms
 * of 1,000 sites on the bench's 1k project, where each file declares about 60 symbols.
 */
export function declares(
  roots: readonly SymbolNode[],
  pos: Location["range"]["start"],
  like: Pick<SymbolNode, "name" | "kind">,
): boolean {
  for (const n of roots) {
    if (n.name === like.name && n.kind === like.kind && samePosition(n.selectionRange.start, pos))
      return true;
    const inside = encloses(n.range, pos) || (n.parts ?? []).some((p) => encloses(p.range, pos));
    if ((inside || n.parts) && declares(n.children, pos, like)) return true;
  }
  return false;
}

function encloses(range: Location["range"], pos: Location["range"]["start"]): boolean {
  const after = (a: Location["range"]["start"], b: Location["range"]["start"]) =>
    a.line > b.line || (a.line === b.line && a.character >= b.character);
  return after(pos, range.start) && after(range.end, pos);
}

/**
 * The longest site line quoted whole; a longer one is cut, since `line` and `column` locate it.
 * 80, a terminal's width: at 100, rxjs `innerFrom`'s 48 call sites quoted 2,945 characters, 2,706 at 80.
 */
export const maxSiteLine = 80;

/**
 * A site's own line as the compact forms quote it: trimmed, and when very long cut to a window
 * that still shows the site (`column0`: the site's 0-based column in the untrimmed line).
 */
export function siteLine(text: string, column0 = 0): string {
  const t = text.trim();
  if (t.length <= maxSiteLine) return t;
  const at = Math.max(0, column0 - (text.length - text.trimStart().length));
  // The head when it holds the site and 40 characters after it; else a window around the site.
  if (at + 40 <= maxSiteLine - 1) return `${t.slice(0, maxSiteLine - 1)}…`;
  const from = Math.max(0, Math.min(at - 20, t.length - (maxSiteLine - 2)));
  const end = from + maxSiteLine - 2;
  return `…${t.slice(from, end)}${end < t.length ? "…" : ""}`;
}
