/**
 * The texts of reference-site files, kept between calls while the disk keeps them: a warm
 * find_referencing_symbols quotes a line of every file with a site, and reading them again (six
 * thread-pool round trips per guarded read) was its largest own cost — 40–130 ms for the 300 site
 * files of the bench fixture, against 44 ms for the server's whole answer. A text is forgotten when
 * the session reports its path, or a directory above it, changed (a watcher event from any process,
 * a write by scalpel: `LspSession.onDiskChange`), and it is used only while its directory is
 * watched; every first read still goes through the guarded reader.
 *
 * Besides the texts, what each site showed (`SiteFacts`) is kept, apart from them and never as the
 * file's symbol tree or split lines: kept per file with the texts for the 5,000 site files of the
 * generated 5k project, the trees (~33 KB a file) and lines (~6 KB) held 150–190 MB of scalpel's
 * live heap after warm references (249 MB live in all), against 20 MB for the texts. A repeated
 * call needs neither, nor the text: its sites' facts answer it (a few hundred bytes a site), so
 * they stay even for files whose text does not fit the texts' bound (20k files: 80 MB of text).
 */
import { dirname, sep } from "node:path";
import { LRUCache } from "lru-cache";
import { stringBytes } from "../core/string-bytes.js";
import { uriToPath } from "../lsp/uri.js";
import type { Located } from "../security/sandbox.js";
import type { TextFile } from "../text/read.js";
import type { WatchedSession } from "./scope-cache.js";

export interface SiteText {
  text: string;
  /** How the file was read (encoding, BOM, line ending, mode): a rename's dry run previews it unread. */
  format?: Omit<TextFile, "bytes" | "text">;
}

/** One reference site as the answer shows it, for one symbol asked about. */
export interface SiteFacts {
  /** The site declares a symbol of the asked one's name and kind (an overload): left out. */
  declares: boolean;
  /** An import or re-export that only names the symbol. */
  import: boolean;
  container: { namePath: string; kind: string } | null;
  /**
   * The site's line as quoted with context_lines 0: a string of its own, never a slice of the
   * file's text (V8 keeps a slice's whole parent alive), or the facts would keep the text.
   */
  line: string;
}

/** The site at `pos` of a file, for a symbol of `like`'s name and kind. */
export function factKey(
  pos: { line: number; character: number },
  like: { name: string; kind: string },
): string {
  return `${pos.line}:${pos.character}:${like.kind}:${like.name}`;
}

/** What a kept fact weighs besides its strings: the Map entry and the objects, in bytes. */
const factOverhead = 96;
/**
 * Facts kept at most, in bytes (`factOverhead` and their strings, string-bytes.ts): 16 MiB, about
 * 100,000 sites of the bench's projects (each of whose files has one site). The least recently
 * used file's go first.
 */
const defaultMaxFactBytes = 16 * 1024 * 1024;

/** Where a site's URI points, as the sandbox told: kept like the texts, for the sandbox that told. */
interface Place {
  sandbox: object;
  abs: string;
  where: Located;
}

/**
 * Bytes of text kept at most (string-bytes.ts: ASCII text takes a byte a character). Before the facts were
 * kept, the site files of one call were all needed again by the next: at 16 Mi characters the
 * 5,000 site files of the generated 5k project (4 KB each) did not fit, and dropping the oldest
 * made every warm call miss every file (a warm find_referencing_symbols 9× the raw request). A
 * repeated call now needs no text (its facts answer it); texts spare the reads of another symbol's
 * sites in the same files and of rename's pins. 32 Mi still holds the 5k project's 20 MB; at 20k
 * files (80 MB of text) 64 Mi kept 64 MB of scalpel's 215 MB live heap. A file is kept only by
 * pushing out texts unused for `staleMs`; past that the newcomer is not kept, so a working set
 * larger than the bound still hits for the part that fits.
 */
const defaultMaxTextBytes = 32 * 1024 * 1024;
/** A kept text unused this long may make room for another. */
const defaultStaleMs = 60_000;
/**
 * Bytes of site places kept at most (their strings and `placeOverhead` each; ~100,000 places of
 * the bench's projects); the oldest go first.
 */
const maxPlaceBytes = 16 * 1024 * 1024;
/** A place's objects (the entry, the place, its Located and CheckedPath), in bytes. */
const placeOverhead = 128;

export interface SiteTextBounds {
  maxTextBytes?: number;
  maxFactBytes?: number;
  staleMs?: number;
  now?: () => number;
}

/** A kept text, what it weighs (bytes) and when it was last used (the staleness that lets it make room). */
interface KeptText {
  site: SiteText;
  bytes: number;
  usedAt: number;
}

/** A file's facts by `factKey`, and their weight. */
interface FileFacts {
  byKey: Map<string, SiteFacts>;
  bytes: number;
}

export class SiteTextCache {
  /** Bounded by bytes; least recently used first (`rkeys`). */
  private readonly texts: LRUCache<string, KeptText>;
  private readonly maxTextBytes: number;
  private readonly staleMs: number;
  private readonly now: () => number;
  /**
   * By URI. Locating each site again (a realpath and a stat per site: the sandbox's checks) cost
   * 25 ms of a warm call for 1,000 sites. Only a URI that spells its file's own path is kept (not
   * a symlinked alias), so the change reports that forget its text forget its place too. Bounded
   * by bytes, the oldest kept out first (read with `peek`: a place is a few short strings). A size
   * bound, not the cache's `max` (a count), which allocated its 100,000 slots at once: 20 ms of the
   * first references call of a process.
   */
  private readonly places = new LRUCache<string, Place>({
    maxSize: maxPlaceBytes,
    sizeCalculation: (p, uri) =>
      placeOverhead +
      stringBytes(uri) +
      stringBytes(p.abs) +
      (p.where.kind === "file" ? stringBytes(p.where.path.rel) : 0),
  });
  /** By file, bounded by weight, the least recently used file's facts out first. */
  private readonly facts: LRUCache<string, FileFacts>;
  /** Bumped by every reported change: a read that a change overtook is not kept. */
  private generation = 0;
  readonly stop: () => void;

  constructor(
    private readonly session: WatchedSession,
    bounds: SiteTextBounds = {},
  ) {
    this.maxTextBytes = bounds.maxTextBytes ?? defaultMaxTextBytes;
    this.staleMs = bounds.staleMs ?? defaultStaleMs;
    this.now = bounds.now ?? Date.now;
    this.texts = new LRUCache({ maxSize: this.maxTextBytes, sizeCalculation: (t) => t.bytes });
    this.facts = new LRUCache({
      maxSize: bounds.maxFactBytes ?? defaultMaxFactBytes,
      sizeCalculation: (f) => f.bytes,
    });
    this.stop = session.onDiskChange((paths) => this.changed(paths));
  }

  get mark(): number {
    return this.generation;
  }

  get(abs: string): SiteText | undefined {
    const hit = this.texts.peek(abs);
    if (!hit || !this.session.watches(dirname(abs))) return undefined;
    this.texts.get(abs);
    hit.usedAt = this.now();
    return hit.site;
  }

  keep(mark: number, abs: string, text: SiteText): void {
    if (mark !== this.generation || !this.session.watches(dirname(abs))) return;
    this.texts.delete(abs);
    const weight = stringBytes(text.text);
    if (weight > this.maxTextBytes) return;
    // Room is made only of texts unused for `staleMs`, least recently used first: at the first
    // recent one the newcomer is not kept instead (the cache alone would push out recent ones).
    const now = this.now();
    let room = this.maxTextBytes - this.texts.calculatedSize;
    const stale: string[] = [];
    let fits = room >= weight;
    for (const oldest of this.texts.rkeys()) {
      if (fits) break;
      const kept = this.texts.peek(oldest);
      if (!kept || now - kept.usedAt < this.staleMs) break;
      stale.push(oldest);
      room += kept.bytes;
      fits = room >= weight;
    }
    for (const key of stale) this.texts.delete(key);
    if (fits) this.texts.set(abs, { site: text, bytes: weight, usedAt: now });
  }

  /** What sites of the file showed, while nothing under it changed. */
  factsOf(abs: string): ReadonlyMap<string, SiteFacts> | undefined {
    const hit = this.facts.peek(abs);
    if (!hit || !this.session.watches(dirname(abs))) return undefined;
    this.facts.get(abs);
    return hit.byKey;
  }

  /**
   * Keeps what a site showed, worked out from the file's text as it was at `mark` (the cache's
   * generation when the text was read or found kept): not kept when a change overtook it.
   */
  keepFacts(mark: number, abs: string, key: string, facts: SiteFacts): void {
    if (mark !== this.generation || !this.session.watches(dirname(abs))) return;
    const byKey = this.facts.peek(abs)?.byKey ?? new Map<string, SiteFacts>();
    if (byKey.has(key)) return;
    const weight =
      factOverhead +
      stringBytes(key) +
      stringBytes(facts.line) +
      (facts.container ? stringBytes(facts.container.namePath) : 0);
    byKey.set(key, facts);
    // Set again, as a new entry (the cache weighs an entry only when its value changes): the file
    // becomes the most recently used (as it is: its facts were just looked up), and the least
    // recently used files' facts make room.
    this.facts.set(abs, { byKey, bytes: (this.facts.peek(abs)?.bytes ?? 0) + weight });
  }

  /** What is kept, in bytes as weighed: texts and facts. */
  get size(): { texts: number; facts: number } {
    return { texts: this.texts.calculatedSize, facts: this.facts.calculatedSize };
  }

  /** The place the sandbox gave for `uri` before, while nothing under it changed. */
  place(uri: string, sandbox: object): Located | undefined {
    const hit = this.places.peek(uri);
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
  }

  private changed(paths: readonly string[]): void {
    this.generation++;
    for (const path of paths) {
      // A directory renamed or removed: everything below it.
      const below = path + sep;
      const hit = (abs: string) => abs === path || abs.startsWith(below);
      for (const abs of [...this.texts.keys()].filter(hit)) this.texts.delete(abs);
      for (const abs of [...this.facts.keys()].filter(hit)) this.facts.delete(abs);
      for (const [uri, p] of [...this.places.entries()]) if (hit(p.abs)) this.places.delete(uri);
    }
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
