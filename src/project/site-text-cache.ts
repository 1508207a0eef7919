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
import type { WatchedSession } from "./reference-scope-cache.js";

export interface SiteText {
  text: string;
  lines: string[];
}

/** Characters kept at most (UTF-16 units, about twice as many bytes); the oldest go first. */
const maxChars = 16 * 1024 * 1024;

export class SiteTextCache {
  private readonly texts = new Map<string, SiteText>();
  private chars = 0;
  /** Bumped by every reported change: a read that a change overtook is not kept. */
  private generation = 0;
  readonly stop: () => void;

  constructor(private readonly session: WatchedSession) {
    this.stop = session.onDiskChange((paths) => this.changed(paths));
  }

  get mark(): number {
    return this.generation;
  }

  get(abs: string): SiteText | undefined {
    const hit = this.texts.get(abs);
    return hit && this.session.watches(dirname(abs)) ? hit : undefined;
  }

  keep(mark: number, abs: string, text: SiteText): void {
    if (mark !== this.generation || !this.session.watches(dirname(abs))) return;
    this.drop(abs);
    this.texts.set(abs, text);
    this.chars += text.text.length;
    for (const oldest of this.texts.keys()) {
      if (this.chars <= maxChars) break;
      this.drop(oldest);
    }
  }

  private changed(paths: readonly string[]): void {
    this.generation++;
    for (const path of paths) {
      this.drop(path);
      // A directory renamed or removed: everything below it.
      const below = path + sep;
      for (const abs of this.texts.keys()) if (abs.startsWith(below)) this.drop(abs);
    }
  }

  private drop(abs: string): void {
    const had = this.texts.get(abs);
    if (!had) return;
    this.chars -= had.text.length;
    this.texts.delete(abs);
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
