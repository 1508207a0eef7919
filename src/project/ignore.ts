/**
 * Which paths listing and searching tools skip: build output and dependency folders that are never
 * worth an agent's budget, the root and nested `.gitignore` files, and patterns from project config.
 */
import type { Dirent } from "node:fs";
import { readFileSync, statSync } from "node:fs";
import { opendir, realpath, stat } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import ignore, { type Ignore } from "ignore";

/** Directory names skipped at any depth. */
export const alwaysIgnoredDirs: ReadonlySet<string> = new Set([
  ".git",
  "node_modules",
  "target",
  ".dart_tool",
  "build",
  "dist",
]);
/** Project-relative directories skipped. */
const alwaysIgnoredPaths: readonly string[] = [".scalpel/cache"];

/** How long a parsed `.gitignore` is trusted before its mtime is checked again. */
const recheckMs = 2000;

interface GitignoreEntry {
  ig: Ignore | null;
  mtimeMs: number;
  checkedAt: number;
}

export class IgnoreRules {
  private readonly extra: Ignore;
  private readonly cache = new Map<string, GitignoreEntry>();

  constructor(
    readonly root: string,
    extraPatterns: string[],
  ) {
    this.extra = ignore().add(extraPatterns);
  }

  isIgnored(rel: string, isDir: boolean): boolean {
    const segments = rel.split("/").filter((s) => s !== "" && s !== ".");
    if (segments.length === 0) return false;
    // Git does not look inside an ignored directory, so no rule below it can un-ignore a path.
    for (let i = 0; i < segments.length; i++) {
      const last = i === segments.length - 1;
      if (this.ignoredHere(segments, i + 1, last ? isDir : true)) return true;
    }
    return false;
  }

  /** Drops cached `.gitignore` files, e.g. after scalpel itself wrote one. */
  refresh(): void {
    this.cache.clear();
  }

  /** Whether the path made of the first `n` segments is ignored, ignoring its parents. */
  private ignoredHere(segments: string[], n: number, isDir: boolean): boolean {
    const name = segments[n - 1] ?? "";
    const path = segments.slice(0, n).join("/");
    if (isDir && alwaysIgnoredDirs.has(name)) return true;
    if (isDir && alwaysIgnoredPaths.includes(path)) return true;
    const probe = isDir ? `${path}/` : path;
    if (this.extra.ignores(probe)) return true;
    // Deeper .gitignore files override shallower ones, as in git.
    let ignored = false;
    for (let d = 0; d < n; d++) {
      const ig = this.gitignoreOf(segments.slice(0, d).join("/"));
      if (!ig) continue;
      const sub = segments.slice(d, n).join("/");
      const r = ig.test(isDir ? `${sub}/` : sub);
      if (r.ignored) ignored = true;
      else if (r.unignored) ignored = false;
    }
    return ignored;
  }

  private gitignoreOf(dirRel: string): Ignore | null {
    const now = Date.now();
    const hit = this.cache.get(dirRel);
    if (hit && now - hit.checkedAt < recheckMs) return hit.ig;
    const file = join(this.root, dirRel, ".gitignore");
    let mtimeMs = -1;
    try {
      mtimeMs = statSync(file).mtimeMs;
    } catch {
      // No .gitignore here.
    }
    if (hit && hit.mtimeMs === mtimeMs) {
      hit.checkedAt = now;
      return hit.ig;
    }
    let ig: Ignore | null = null;
    if (mtimeMs >= 0) {
      try {
        ig = ignore().add(readFileSync(file, "utf8"));
      } catch {
        ig = null;
      }
    }
    if (dirRel === "") ig = withGitExclude(this.root, ig);
    this.cache.set(dirRel, { ig, mtimeMs, checkedAt: now });
    return ig;
  }
}

function withGitExclude(root: string, ig: Ignore | null): Ignore | null {
  let text: string;
  try {
    text = readFileSync(join(root, ".git", "info", "exclude"), "utf8");
  } catch {
    return ig;
  }
  // Exclude rules rank below .gitignore rules, so they go first.
  return ignore()
    .add(text)
    .add(ig ?? []);
}

export interface WalkOptions {
  skipIgnored: boolean;
  /** Stop after this many files (directories do not count). */
  maxFiles?: number;
  /** 1 = only the direct children of the start directory. */
  maxDepth?: number;
  signal?: AbortSignal;
}

export interface WalkEntry {
  /** Project-relative, `/`-separated. */
  rel: string;
  isDir: boolean;
}

/**
 * Depth-first walk in name order under `startRel` (project-relative). Symlinks are reported only when
 * their target is inside the root, and symlinked directories are never descended into (no cycles,
 * no duplicates, nothing outside the root).
 */
export async function* walkFiles(
  root: string,
  startRel: string,
  rules: IgnoreRules,
  opts: WalkOptions,
): AsyncIterable<WalkEntry> {
  const maxFiles = opts.maxFiles ?? Number.POSITIVE_INFINITY;
  const maxDepth = opts.maxDepth ?? Number.POSITIVE_INFINITY;
  let files = 0;
  const start = startRel === "." || startRel === "" ? "" : startRel.replace(/\/+$/, "");

  async function* visit(dirRel: string, depth: number): AsyncGenerator<WalkEntry, boolean> {
    const entries = await readDirSorted(join(root, dirRel));
    for (const entry of entries) {
      if (opts.signal?.aborted) return false;
      const rel = dirRel === "" ? entry.name : `${dirRel}/${entry.name}`;
      let isDir = entry.isDirectory();
      let descend = isDir;
      if (entry.isSymbolicLink()) {
        const target = await linkTarget(root, rel);
        if (target === null) continue;
        isDir = target.isDir;
        descend = false;
      } else if (!isDir && !entry.isFile()) {
        continue; // sockets, fifos, devices
      }
      if (opts.skipIgnored && rules.isIgnored(rel, isDir)) continue;
      if (!isDir) {
        if (files >= maxFiles) return false;
        files++;
      }
      yield { rel, isDir };
      if (descend && depth < maxDepth) {
        const more = yield* visit(rel, depth + 1);
        if (!more) return false;
      }
    }
    return true;
  }

  yield* visit(start, 1);
}

async function readDirSorted(abs: string): Promise<Dirent[]> {
  const out: Dirent[] = [];
  try {
    const dir = await opendir(abs);
    for await (const entry of dir) out.push(entry);
  } catch {
    return out; // unreadable or vanished directories are skipped
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

async function linkTarget(root: string, rel: string): Promise<{ isDir: boolean } | null> {
  try {
    const real = await realpath(join(root, rel));
    const inside = relative(root, real);
    if (inside === ".." || inside.startsWith(`..${sep}`)) return null;
    return { isDir: (await stat(real)).isDirectory() };
  } catch {
    return null;
  }
}
