/**
 * Watches a project tree for changes made by anyone (an editor, a formatter, `git checkout`) and
 * hands them over, coalesced, when asked. One non-recursive `fs.watch` (one inotify watch) per
 * directory, not node's `{recursive: true}`: that one (node 20 on Linux) walks and watches every
 * directory, dependency folders included, with no way to skip one. Heavy directories named by the
 * caller (dependencies, build output) are watched shallowly: names appearing directly in them (and
 * in `@scope` directories, how package folders group packages) are reported, nothing deeper; a
 * package installed there is seen as a new directory, which is what module resolution waits for.
 *
 * Raw events are only hints ("something happened to this name"); whoever drains them stats the
 * paths. So an event lost to timing costs nothing as long as it arrives before the drain, and
 * `drain()` makes sure it does: the kernel queues an inotify event inside the writer's own
 * write/rename syscall, so every change that finished before a call arrived is already readable on
 * the inotify descriptor; the drain lets the event loop run two turns (each turn polls that
 * descriptor) before it takes the set.
 */
import { type FSWatcher, watch } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { setImmediate as nextTurn } from "node:timers/promises";

/** What happened to a path, as far as the raw events tell: `rename` = appeared or disappeared. */
export type RawChange = "rename" | "change";

export interface WatchedChange {
  path: string;
  change: RawChange;
}

/**
 * Never a source of files a server reads: version-control directories (busy on every commit) and
 * scalpel's own `.scalpel/` (journal, symbol index: its temp files made a delta report "files kept
 * changing on disk").
 */
const vcsDirs = [".git", ".hg", ".svn", ".scalpel"];

/**
 * Paths changed since the last `take()`. A path keeps its strongest change: `rename` wins over
 * `change` (a file replaced by rename must be re-announced even if a `change` followed).
 */
export class ChangeSet {
  private readonly byPath = new Map<string, RawChange>();

  add(path: string, change: RawChange): void {
    if (this.byPath.get(path) === "rename") return;
    this.byPath.set(path, change);
  }

  get size(): number {
    return this.byPath.size;
  }

  take(): WatchedChange[] {
    const out = [...this.byPath].map(([path, change]) => ({ path, change }));
    this.byPath.clear();
    return out;
  }
}

export interface FileWatcherOptions {
  /** Directory names watched only at their top level (anywhere in the tree), from the adapters. */
  ignoredDirs: readonly string[];
  /** Watches at most this many directories (default `defaultMaxWatchedDirs`). */
  maxDirs?: number;
  onError?: (message: string) => void;
}

/**
 * Each watched directory is one inotify watch, a kernel resource shared by every program of the
 * user (`fs.inotify.max_user_watches`, 8,192 on older kernels): a tree of 50,000 folders took 50,000
 * with no bound. Past the cap a folder is not watched, as when the kernel refuses one: `watches()`
 * says so, and what depends on watching (the reference caches) reads such folders again instead.
 * SCALPEL_MAX_WATCHES moves the cap.
 */
export const defaultMaxWatchedDirs = (() => {
  const n = Number(process.env.SCALPEL_MAX_WATCHES);
  return Number.isInteger(n) && n > 0 ? n : 30_000;
})();

export class FileWatcher {
  private readonly dirs = new Map<string, FSWatcher>();
  /** Date.now() just after each directory's watch began: changes from then on are reported. */
  private readonly since = new Map<string, number>();
  private readonly changes = new ChangeSet();
  private readonly ignored: Set<string>;
  /** Directory scans still running (new directories found by events); drains wait for them. */
  private readonly pending = new Set<Promise<void>>();
  private closed = false;
  /** The cap on watched directories was reached (said once). */
  private capped = false;
  /** Set once the first scan of the tree is done: from then on every watched directory is known. */
  private scanned = false;
  readonly ready: Promise<void>;

  constructor(
    private readonly root: string,
    private readonly opts: FileWatcherOptions,
  ) {
    this.ignored = new Set([...vcsDirs, ...opts.ignoredDirs]);
    this.ready = this.addTree(root, false);
    void this.ready.then(() => {
      this.scanned = true;
    });
  }

  /**
   * Whether a change made by anyone to an entry directly in `dir` is reported: the first scan is
   * done and a watch is on `dir` (not past a heavy directory's top, not refused by the kernel).
   */
  watches(dir: string): boolean {
    return this.scanned && !this.closed && this.dirs.has(dir);
  }

  /**
   * Whether every change to an entry directly in `dir` after `takenAt` (Date.now()) is reported:
   * `dir` is watched (see `watches`) and its watch began before that moment.
   */
  watchesSince(dir: string, takenAt: number): boolean {
    const since = this.since.get(dir);
    return since !== undefined && since < takenAt && this.watches(dir);
  }

  get watchedDirCount(): number {
    return this.dirs.size;
  }

  /** Everything that changed since the last drain, after pending events were delivered. */
  async drain(): Promise<WatchedChange[]> {
    await this.ready;
    // Two turns: the first may start inside the poll phase that delivered the call itself, after
    // which the second runs a full poll of the inotify descriptor.
    await nextTurn();
    await nextTurn();
    while (this.pending.size > 0) await Promise.all([...this.pending]);
    return this.changes.take();
  }

  close(): void {
    this.closed = true;
    for (const w of this.dirs.values()) w.close();
    this.dirs.clear();
    this.since.clear();
  }

  /** "deep": watched with its subdirectories; "shallow": only its own entries; "skip": not at all. */
  private modeOf(dir: string): "deep" | "shallow" | "skip" {
    const rel = relative(this.root, dir);
    if (rel === "") return "deep";
    const parts = rel.split(sep);
    const first = parts.findIndex((part) => this.ignored.has(part));
    if (first === -1) return "deep";
    if (vcsDirs.includes(parts[first]!)) return "skip";
    if (first === parts.length - 1) return "shallow";
    // `<heavy>/@scope`: its packages are the directories a resolution waits for.
    if (first === parts.length - 2 && parts[first + 1]!.startsWith("@")) return "shallow";
    return "skip";
  }

  /**
   * Watches `dir` and every directory below it. With `announce`, the files found are reported as
   * appeared: a directory created by someone else may have been filled before its watch existed.
   */
  private async addTree(dir: string, announce: boolean): Promise<void> {
    const mode = this.modeOf(dir);
    if (this.closed || this.dirs.has(dir) || mode === "skip") return;
    this.watchDir(dir);
    if (mode === "shallow") {
      // Scoped package directories get their own shallow watch; nothing else below is entered.
      const scopes = await readdir(dir, { withFileTypes: true }).catch(() => []);
      await Promise.all(
        scopes
          .filter((e) => e.isDirectory() && e.name.startsWith("@"))
          .map((e) => this.addTree(join(dir, e.name), false)),
      );
      return;
    }
    let entries: import("node:fs").Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    const subdirs: Promise<void>[] = [];
    for (const e of entries) {
      const full = join(dir, e.name);
      if (e.isDirectory()) subdirs.push(this.addTree(full, announce));
      else if (announce) this.changes.add(full, "rename");
    }
    await Promise.all(subdirs);
  }

  private watchDir(dir: string): void {
    if (this.dirs.size >= (this.opts.maxDirs ?? defaultMaxWatchedDirs)) {
      if (!this.capped) {
        this.capped = true;
        this.opts.onError?.(
          `watching the first ${this.dirs.size} folders only (SCALPEL_MAX_WATCHES): changes in the others are not announced to the language server, and caches re-read them`,
        );
      }
      return;
    }
    let w: FSWatcher;
    try {
      w = watch(dir, { persistent: false }, (event, name) => this.onEvent(dir, event, name));
    } catch (e) {
      // ENOSPC: the inotify watch limit is reached; changes below this directory go unseen.
      this.opts.onError?.(`cannot watch ${relative(this.root, dir) || "."}: ${(e as Error).message}`);
      return;
    }
    w.on("error", () => this.forget(dir));
    this.dirs.set(dir, w);
    this.since.set(dir, Date.now());
  }

  private onEvent(dir: string, event: string, name: string | Buffer | null): void {
    if (this.closed) return;
    if (name === null) {
      // No name (queue overflow): everything directly in this directory is suspect.
      this.track(this.rescan(dir));
      return;
    }
    const path = join(dir, name.toString());
    if (event === "change") {
      this.changes.add(path, "change");
      return;
    }
    this.changes.add(path, "rename");
    // A name appeared or vanished: a new directory must be watched, a vanished one forgotten.
    this.track(
      stat(path).then(
        (s) => (s.isDirectory() ? this.addTree(path, true) : undefined),
        () => this.forgetTree(path),
      ),
    );
  }

  private async rescan(dir: string): Promise<void> {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      const full = join(dir, e.name);
      if (e.isDirectory()) await this.addTree(full, true);
      else this.changes.add(full, "rename");
    }
  }

  private track(p: Promise<void>): void {
    const done: Promise<void> = p.catch(() => undefined).finally(() => this.pending.delete(done));
    this.pending.add(done);
  }

  private forgetTree(path: string): void {
    const prefix = path + sep;
    for (const dir of [...this.dirs.keys()]) if (dir === path || dir.startsWith(prefix)) this.forget(dir);
  }

  private forget(dir: string): void {
    this.dirs.get(dir)?.close();
    this.dirs.delete(dir);
    this.since.delete(dir);
  }
}
