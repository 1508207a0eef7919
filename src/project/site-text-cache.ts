/**
 * The texts of reference-site files, kept between calls while the disk keeps them: a warm
 * find_referencing_symbols quotes a line of every file with a site, and reading them again (six
 * thread-pool round trips per guarded read) was its largest own cost — 40–130 ms for the 300 site
 * files of the bench fixture, against 44 ms for the server's whole answer. A text is forgotten when
 * the session reports its path, or a directory above it, changed (a watcher event from any process,
 * a write by scalpel: `LspSession.onDiskChange`), and it is used only while its directory is
 * watched; every first read still goes through the guarded reader.
 */
import { dirname, sep } from "node:path";
import { uriToPath } from "../lsp/uri.js";
import type { Located } from "../security/sandbox.js";
import type { SymbolNode } from "../symbols/tree.js";
import type { WatchedSession } from "./reference-scope-cache.js";

export interface SiteText {
  text: string;
  lines: string[];
  /**
   * The file's symbols for this text, once a call looked them up: symbols depend on the text
   * only, and finding them again means hashing the text (about 25 ms a call for 1,000 site files).
   */
  roots?: SymbolNode[];
}

/** Where a site's URI points, as the sandbox told: kept like the texts, for the sandbox that told. */
interface Place {
  sandbox: object;
  abs: string;
  where: Located;
}

/**
 * Characters kept at most (UTF-16 units; ASCII text takes a byte each). The site files of one
 * call are all needed again by the next: at 16 Mi characters the 5,000 site files of the generated
 * 5k project (4 KB each) did not fit, and dropping the oldest made every warm call miss every
 * file (a warm find_referencing_symbols 9× the raw request). Now a file is kept only by pushing
 * out texts unused for `staleMs`; past that the newcomer is not kept, so a working set larger than
 * the bound still hits for the part that fits.
 */
const defaultMaxChars = 64 * 1024 * 1024;
/** A kept text unused this long may make room for another. */
const defaultStaleMs = 60_000;
/** Site places kept at most; the oldest go first. */
const maxPlaces = 100_000;

export interface SiteTextBounds {
  maxChars?: number;
  staleMs?: number;
  now?: () => number;
}

export class SiteTextCache {
  /** In order of last use, the least recently used first. */
  private readonly texts = new Map<string, SiteText>();
  private readonly used = new Map<string, number>();
  private readonly maxChars: number;
  private readonly staleMs: number;
  private readonly now: () => number;
  /**
   * By URI. Locating each site again (a realpath and a stat per site: the sandbox's checks) cost
   * 25 ms of a warm call for 1,000 sites. Only a URI that spells its file's own path is kept (not
   * a symlinked alias), so the change reports that forget its text forget its place too.
   */
  private readonly places = new Map<string, Place>();
  private chars = 0;
  /** Bumped by every reported change: a read that a change overtook is not kept. */
  private generation = 0;
  readonly stop: () => void;

  constructor(
    private readonly session: WatchedSession,
    bounds: SiteTextBounds = {},
  ) {
    this.maxChars = bounds.maxChars ?? defaultMaxChars;
    this.staleMs = bounds.staleMs ?? defaultStaleMs;
    this.now = bounds.now ?? Date.now;
    this.stop = session.onDiskChange((paths) => this.changed(paths));
  }

  get mark(): number {
    return this.generation;
  }

  get(abs: string): SiteText | undefined {
    const hit = this.texts.get(abs);
    if (!hit || !this.session.watches(dirname(abs))) return undefined;
    this.touch(abs, hit);
    return hit;
  }

  keep(mark: number, abs: string, text: SiteText): void {
    if (mark !== this.generation || !this.session.watches(dirname(abs))) return;
    this.drop(abs);
    this.touch(abs, text);
    this.chars += text.text.length;
    const now = this.now();
    for (const [oldest] of this.texts) {
      if (this.chars <= this.maxChars) break;
      // Recently used texts stay; the newcomer goes instead.
      this.drop(now - (this.used.get(oldest) ?? 0) >= this.staleMs ? oldest : abs);
    }
  }

  private touch(abs: string, text: SiteText): void {
    this.texts.delete(abs);
    this.texts.set(abs, text);
    this.used.set(abs, this.now());
  }

  /** The place the sandbox gave for `uri` before, while nothing under it changed. */
  place(uri: string, sandbox: object): Located | undefined {
    const hit = this.places.get(uri);
    return hit && hit.sandbox === sandbox && this.session.watches(dirname(hit.abs)) ? hit.where : undefined;
  }

  keepPlace(mark: number, uri: string, sandbox: object, where: Located): void {
    if (mark !== this.generation || where.kind !== "file") return;
    const abs = where.path.abs;
    let spelled: string;
    try {
      spelled = uriToPath(uri);
    } catch {
      return;
    }
    if (spelled !== abs || !this.session.watches(dirname(abs))) return;
    this.places.set(uri, { sandbox, abs, where });
    // Bounded like the texts, by count: a place is a few short strings.
    if (this.places.size > maxPlaces) this.places.delete(this.places.keys().next().value as string);
  }

  private changed(paths: readonly string[]): void {
    this.generation++;
    for (const path of paths) {
      this.drop(path);
      // A directory renamed or removed: everything below it.
      const below = path + sep;
      for (const abs of this.texts.keys()) if (abs.startsWith(below)) this.drop(abs);
      for (const [uri, p] of this.places)
        if (p.abs === path || p.abs.startsWith(below)) this.places.delete(uri);
    }
  }

  private drop(abs: string): void {
    const had = this.texts.get(abs);
    if (!had) return;
    this.chars -= had.text.length;
    this.texts.delete(abs);
    this.used.delete(abs);
  }
}

const caches = new WeakMap<WatchedSession, { startedAt: number | undefined; cache: SiteTextCache }>();

/** The cache of one session; a restarted session starts a new one. */
export function siteTextCache(session: WatchedSession): SiteTextCache {
  const known = caches.get(session);
  if (known && known.startedAt === session.startedAt) return known.cache;
  known?.cache.stop();
  const cache = new SiteTextCache(session);
  caches.set(session, { startedAt: session.startedAt, cache });
  return cache;
}
