/**
 * Which paths listing and searching tools skip: what the repository itself ignores (root and nested
 * `.gitignore` and `.ignore` files, `.git/info/exclude`), patterns from project config, the
 * adapters' dependency folders, and a language's output folders only where they are outputs: a
 * folder an adapter's manifest next to it names as its output (`target/` beside `Cargo.toml`, a
 * tsconfig `outDir`). A tracked `build/` holding sources is searched like any other folder
 * (date-fns `scripts/build/`), and a file git tracks is never hidden by an ignore file's pattern
 * (git ignores no tracked file: `git-index.ts`).
 */
import type { Dirent } from "node:fs";
import { readFileSync, statSync } from "node:fs";
import { opendir, realpath, stat } from "node:fs/promises";
import { join, posix, relative, sep } from "node:path";
import ignore, { type Ignore } from "ignore";
import { adapters } from "../../language-servers/index.js";
import type { OutputDirs } from "../languages/adapter.js";
import { GitIndex } from "./git-index.js";

/**
 * Directory names skipped at any depth: version control and the built-in adapters' folders of
 * installed dependencies (`dependencyDirs`), never sources.
 */
export const alwaysIgnoredDirs: ReadonlySet<string> = new Set([
  ".git",
  ...adapters.flatMap((a) => a.dependencyDirs ?? []),
]);
/** Project-relative directories skipped. */
const alwaysIgnoredPaths: readonly string[] = [".scalpel/cache"];
/** The ignore files read in every directory; later ones take precedence, as in ripgrep. */
const ignoreFiles: readonly string[] = [".gitignore", ".ignore"];

/** Every built-in adapter's output folders; declared servers' `ignored_dirs` arrive as patterns. */
const builtInOutputs: readonly OutputDirs[] = adapters.flatMap((a) => (a.outputs ? [a.outputs] : []));

/** How long a directory's parsed rules are trusted before their files' mtimes are checked again. */
const recheckMs = 2000;

/** What one directory contributes: its ignore patterns and the output folders its manifests name. */
interface DirRules {
  ig: Ignore | null;
  /** Project-relative paths of output folders declared by manifests in this directory. */
  outputs: ReadonlySet<string>;
}

interface DirEntry extends DirRules {
  /** The mtimes of every file read, joined: a change to any of them re-reads the directory. */
  stamp: string;
  checkedAt: number;
}

export class IgnoreRules {
  private readonly extra: Ignore;
  private readonly cache = new Map<string, DirEntry>();
  private readonly manifests: readonly string[];
  private readonly git: GitIndex;

  /**
   * @param outputs the adapters' output-folder declarations: a folder is hidden as build output
   *   only when a manifest beside (or above) it names it.
   */
  constructor(
    readonly root: string,
    extraPatterns: string[],
    private readonly outputs: readonly OutputDirs[] = builtInOutputs,
  ) {
    this.extra = ignore().add(extraPatterns);
    this.manifests = [...new Set(outputs.flatMap((o) => o.manifests))];
    this.git = new GitIndex(root);
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

  /** Drops cached ignore files and manifests, e.g. after scalpel itself wrote one. */
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
    // Deeper ignore files override shallower ones, as in git.
    let ignored = false;
    for (let d = 0; d < n; d++) {
      const rules = this.rulesOf(segments.slice(0, d).join("/"));
      if (isDir && rules.outputs.has(path)) return true;
      if (!rules.ig) continue;
      const sub = segments.slice(d, n).join("/");
      const r = rules.ig.test(isDir ? `${sub}/` : sub);
      if (r.ignored) ignored = true;
      else if (r.unignored) ignored = false;
    }
    // A tracked file, or a folder holding one, is not ignored whatever an ignore file says.
    return ignored && !this.git.paths().has(path, isDir);
  }

  private rulesOf(dirRel: string): DirRules {
    const now = Date.now();
    const hit = this.cache.get(dirRel);
    if (hit && now - hit.checkedAt < recheckMs) return hit;
    const names = [...ignoreFiles, ...this.manifests];
    const mtimes = names.map((n) => mtimeOf(join(this.root, dirRel, n)));
    const stamp = mtimes.join(",");
    if (hit && hit.stamp === stamp) {
      hit.checkedAt = now;
      return hit;
    }
    let ig: Ignore | null = null;
    for (const [i, file] of ignoreFiles.entries()) {
      const text = mtimes[i]! < 0 ? null : readText(join(this.root, dirRel, file));
      if (text !== null) ig = (ig ?? ignore()).add(text);
    }
    if (dirRel === "") ig = withGitExclude(this.root, ig);
    const outputs = new Set<string>();
    for (const decl of this.outputs) {
      for (const manifest of decl.manifests) {
        if (mtimes[names.indexOf(manifest)]! < 0) continue;
        const abs = join(this.root, dirRel, manifest);
        const text = readText(abs);
        if (text === null) continue;
        for (const dir of decl.dirs(text, { abs, root: this.root })) {
          const out = posix.normalize(posix.join(dirRel || ".", dir)).replace(/\/+$/, "");
          // An output outside the root, or the root itself, hides nothing.
          if (out !== "." && out !== ".." && !out.startsWith("../") && !out.startsWith("/")) outputs.add(out);
        }
      }
    }
    const entry: DirEntry = { ig, outputs, stamp, checkedAt: now };
    this.cache.set(dirRel, entry);
    return entry;
  }
}

function mtimeOf(abs: string): number {
  try {
    return statSync(abs).mtimeMs;
  } catch {
    return -1;
  }
}

function readText(abs: string): string | null {
  try {
    return readFileSync(abs, "utf8");
  } catch {
    return null;
  }
}

function withGitExclude(root: string, ig: Ignore | null): Ignore | null {
  const text = readText(join(root, ".git", "info", "exclude"));
  if (text === null) return ig;
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
