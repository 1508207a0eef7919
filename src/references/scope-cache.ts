/**
 * What `referenceScope` learns, kept between calls while the disk stays the same: the defining
 * file's project with its file list (a tsserver `projectInfo`) and, per name, the files outside
 * that project that mention it (a walk reading every other file of the language). Both depend on
 * the disk only, so they are reused until the session reports any change under the root — a
 * watcher event from any process or a write by scalpel (`LspSession.onDiskChange`) — and only
 * where that report can be trusted: a project answer while the watcher covers the root, a scan
 * only when every directory it read is watched (a deep `build/` of sources past the watcher's
 * shallow top, or a directory the kernel refused to watch, is scanned again on every call).
 * Measured on the 300-file bench fixture: the two cost 10–60 ms and 3–16 ms per warm call.
 */
import { join, sep } from "node:path";
import { LRUCache } from "lru-cache";
import type { Location } from "vscode-languageserver-protocol";
import { stringBytes } from "../core/string-bytes.js";
import type { ProjectAnswer } from "../servers/answering-project.js";
import type { Mentions } from "./name-mentions.js";

/** What the cache needs of a session: its change reports, what its watcher covers, its start. */
export interface WatchedSession {
  onDiskChange(listener: (absPaths: readonly string[]) => void): () => void;
  watches(absDir: string): boolean;
  readonly startedAt?: number | undefined;
}

/**
 * What each map keeps at most, in bytes as the weights below estimate them; the oldest kept go
 * first (names asked for once are the common case): reads `peek`, so a use does not renew an
 * entry, only keeping it again does. Bounded by count (256 entries) before, one map could hold 256
 * answers of the generated 20k project's `compute` — each 20,000 locations (~4 MB) — or as many
 * 20,000-file project lists. An entry over the bound is kept alone (the cache refuses larger ones).
 */
export const defaultMaxBytes = 16 * 1024 * 1024;
const bounded = <V extends object>(maxBytes: number, weigh: (v: V) => number) =>
  new LRUCache<string, V>({
    maxSize: maxBytes,
    sizeCalculation: (v) => Math.min(Math.max(Math.ceil(weigh(v)), 1), maxBytes),
  });

/** Estimated bytes of a small object: a location's range or position, a path, a Set or Map slot. */
const objectBytes = 32;
const sumOf = <T>(xs: Iterable<T>, f: (x: T) => number) => {
  let n = 0;
  for (const x of xs) n += f(x);
  return n;
};
export const weighProject = (a: ProjectAnswer) =>
  objectBytes + sumOf(a.files ?? [], (f) => stringBytes(f) + objectBytes);
export const weighMentions = (m: Mentions) =>
  objectBytes +
  sumOf(m.files, (f) => stringBytes(f.abs) + stringBytes(f.rel) + 2 * objectBytes) +
  sumOf(m.dirs, stringBytes);
/** A location: the object, its range's three, and its URI (a string of its own per location, as parsed). */
const weighSites = (k: KnownSites) =>
  objectBytes +
  sumOf(k.locations, (l) => 4 * objectBytes + stringBytes(l.uri)) +
  sumOf(k.projects, ([rel, p]) => stringBytes(rel) + (p === null ? 0 : stringBytes(p)) + objectBytes) +
  sumOf(k.outside, stringBytes) +
  sumOf(k.folders, stringBytes);

/**
 * What one references question found once every file of its scope was opened: the server's
 * locations and, per site file outside the defining project, that file's project. A function of the
 * disk (what `referenceScope` is for), so while nothing was reported changed a repeated question
 * needs none of those files opened again nor their projects asked: only the request itself.
 */
export interface KnownSites {
  locations: readonly Location[];
  /** By project-relative path; null: in no project. */
  projects: ReadonlyMap<string, string | null>;
  /** The outside files opened for it (absolute), in order: the same scope must hold the same ones. */
  outside: readonly string[];
  /**
   * The folders of the defining file, the outside files and every site: a change in one the
   * watcher does not cover would go unreported, so the answer is kept only while all are watched.
   */
  folders: readonly string[];
}

export class ReferenceScopeCache {
  /** Bumped by every reported change: a computation that saw a bump while it ran is not kept. */
  private generation = 0;
  private readonly projects: LRUCache<string, ProjectAnswer>;
  /** Keyed by the project answer's file set (the scan's `skip`): a new project answer, new scans. */
  private mentions = new WeakMap<ReadonlySet<string>, LRUCache<string, Mentions>>();
  private readonly sites: LRUCache<string, KnownSites>;
  private readonly own: string;
  readonly stop: () => void;

  /** `maxBytes`: what each map keeps at most (see `defaultMaxBytes`). */
  constructor(
    private readonly root: string,
    private readonly session: WatchedSession,
    private readonly maxBytes = defaultMaxBytes,
  ) {
    this.projects = bounded(maxBytes, weighProject);
    this.sites = bounded(maxBytes, weighSites);
    // scalpel's own state (the symbol index, the undo journal) changes nothing a scope reads.
    this.own = join(root, ".scalpel") + sep;
    this.stop = session.onDiskChange((paths) => {
      if (paths.some((p) => !p.startsWith(this.own))) this.forget();
    });
  }

  /** A token to hand back to `keep*`: what was computed after it is kept only if nothing changed since. */
  get mark(): number {
    return this.generation;
  }

  project(fileAbs: string): ProjectAnswer | undefined {
    return this.session.watches(this.root) ? this.projects.peek(fileAbs) : undefined;
  }

  /**
   * Keeps a configured project's answer. An inferred project (no tsconfig) is not kept: its files
   * are whichever loose files are open, which is what earlier calls did, not the disk.
   */
  keepProject(mark: number, fileAbs: string, answer: ProjectAnswer): void {
    if (mark !== this.generation || answer.project === null || !answer.files) return;
    if (!this.session.watches(this.root)) return;
    this.projects.set(fileAbs, answer);
  }

  /** A kept scan, while every directory it read is still watched (a watch the kernel dropped is not). */
  mentionsOf(skip: ReadonlySet<string>, name: string): Mentions | undefined {
    const found = this.mentions.get(skip)?.peek(name);
    return found && this.allWatched(found) ? found : undefined;
  }

  /**
   * A kept scan some of whose directories are not watched (`stale`: to read again), while nothing
   * was reported changed since it was kept: the watched part still holds.
   */
  partOf(skip: ReadonlySet<string>, name: string): { kept: Mentions; stale: string[] } | undefined {
    const found = this.mentions.get(skip)?.peek(name);
    if (!found || found.stopped) return undefined;
    const stale = found.dirs.filter((rel) => !this.watchesRel(rel));
    return stale.length < found.dirs.length ? { kept: found, stale } : undefined;
  }

  /**
   * Keeps a scan; where a directory it read is not watched, `partOf` has it read again on use (a
   * change there is not reported). A scan that stopped at the bound is kept only when all watched.
   */
  keepMentions(mark: number, skip: ReadonlySet<string>, name: string, found: Mentions): void {
    if (mark !== this.generation) return;
    if (!this.allWatched(found) && (found.stopped || !found.dirs.some((d) => this.watchesRel(d)))) return;
    let byName = this.mentions.get(skip);
    if (!byName) {
      byName = bounded(this.maxBytes, weighMentions);
      this.mentions.set(skip, byName);
    }
    byName.set(name, found);
  }

  /**
   * The sites found for `key` (the symbol: defining file, position, name) while nothing was
   * reported changed since, the root and every outside file's folder are watched, and the scope
   * names the same outside files.
   */
  sitesOf(key: string, outside: readonly string[]): KnownSites | undefined {
    const found = this.sites.peek(key);
    return found && sameList(found.outside, outside) && this.reported(found) ? found : undefined;
  }

  keepSites(mark: number, key: string, found: KnownSites): void {
    if (mark === this.generation && this.reported(found)) this.sites.set(key, found);
  }

  /** Whether a change to anything the sites depend on would be reported: the root and their folders are watched. */
  private reported(found: KnownSites): boolean {
    return this.session.watches(this.root) && found.folders.every((dir) => this.session.watches(dir));
  }

  private allWatched(found: Mentions): boolean {
    return found.dirs.every((rel) => this.watchesRel(rel));
  }

  private watchesRel(rel: string): boolean {
    return this.session.watches(rel === "." ? this.root : join(this.root, rel));
  }

  private forget(): void {
    this.generation++;
    this.projects.clear();
    this.sites.clear();
    this.mentions = new WeakMap();
  }
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

const caches = new WeakMap<WatchedSession, { startedAt: number | undefined; cache: ReferenceScopeCache }>();

/**
 * The cache of one session; a restarted session starts a new one (writes made while it was down
 * were not reported to it).
 */
export function referenceScopeCache(root: string, session: WatchedSession): ReferenceScopeCache {
  const known = caches.get(session);
  if (known && known.startedAt === session.startedAt) return known.cache;
  known?.cache.stop();
  const cache = new ReferenceScopeCache(root, session);
  caches.set(session, { startedAt: session.startedAt, cache });
  return cache;
}
