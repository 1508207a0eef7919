/**
 * What a references call keeps for the next identical one (scope-cache.ts `KnownSites`), and which
 * of its files the watcher vouches for.
 */
import { dirname } from "node:path";
import type { Location } from "vscode-languageserver-protocol";
import { uriToPath } from "../lsp/uri.js";
import type { CheckedPath } from "../security/sandbox.js";
import type { ReferenceScopeCache, WatchedSession } from "./scope-cache.js";

/** A file whose changes the session's watcher reports. */
export function watchedFile(session: Pick<WatchedSession, "watches">, abs: string): boolean {
  return session.watches(dirname(abs));
}

/**
 * Keeps what this call found for the next identical one (scope-cache.ts `KnownSites`): only the
 * sites and projects of files in watched folders, whose changes would be reported; a file of an
 * unwatched folder is asked again each time. Not kept when a site's URI names no path.
 */
export async function keepSites(
  q: { abs: string; session: Pick<WatchedSession, "watches"> },
  cache: ReferenceScopeCache,
  mark: number,
  key: string,
  raw: readonly Location[],
  asked: ReadonlyMap<string, Promise<string | null | undefined>>,
  outside: readonly CheckedPath[],
): Promise<void> {
  const locations: Location[] = [];
  const folders = new Set([dirname(q.abs)]);
  for (const loc of raw) {
    let abs: string;
    try {
      abs = uriToPath(loc.uri);
    } catch {
      return;
    }
    if (!watchedFile(q.session, abs)) continue;
    locations.push(loc);
    folders.add(dirname(abs));
  }
  const projects = new Map<string, string | null>();
  const watchedRel = new Set(outside.filter((p) => watchedFile(q.session, p.abs)).map((p) => p.rel));
  for (const p of outside) if (watchedRel.has(p.rel)) folders.add(dirname(p.abs));
  for (const [rel, p] of asked) {
    const project = await p;
    // A file whose project could not be told (undefined) is asked again next time.
    if (project !== undefined && (watchedRel.has(rel) || !outside.some((o) => o.rel === rel)))
      projects.set(rel, project);
  }
  cache.keepSites(mark, key, {
    locations,
    projects,
    outside: outside.map((p) => p.abs),
    folders: [...folders],
  });
}
