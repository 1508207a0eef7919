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

/** See `IgnoreRules.contextOf`. */
export interface WalkContext {
  readonly chain: ReadonlyArray<{ base: string; rules: DirRules }>;
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

  /**
   * What a directory walk carries down for `dirRel` (project-relative, `""` for the root): the
   * rules of every directory from the root to it that has any, deepest last. With it an entry is
   * judged by its own name against those rules only (`isIgnoredIn`), its parents being known not
   * ignored — the whole-path check (`isIgnored`) re-judged every parent of every entry and read
   * the rules of each by a path built anew, work that grew with the cube of the depth (a folder
   * nested 1,000 levels deep kept start-up busy for over ten minutes).
   */
  contextOf(parent: WalkContext | null, dirRel: string, present?: ReadonlySet<string>): WalkContext {
    if (parent === null && dirRel !== "") {
      // A walk that starts below the root: the chain of every folder above the start, once.
      let ctx = this.contextOf(null, "");
      const segments = dirRel.split("/");
      for (let i = 1; i <= segments.length; i++) ctx = this.contextOf(ctx, segments.slice(0, i).join("/"));
      return ctx;
    }
    const rules = this.rulesOf(dirRel, present);
    const has = rules.ig !== null || rules.outputs.size > 0;
    const chain = parent?.chain ?? [];
    return { chain: has ? [...chain, { base: dirRel, rules }] : chain };
  }

  /**
   * Whether the entry `rel` (named `name`) of the directory `ctx` describes is ignored, that
   * directory and its parents being known not to be: the rules of `ignoredHere`, in the same order.
   */
  isIgnoredIn(ctx: WalkContext, rel: string, name: string, isDir: boolean): boolean {
    if (isDir && alwaysIgnoredDirs.has(name)) return true;
    if (isDir && alwaysIgnoredPaths.includes(rel)) return true;
    if (this.extra.ignores(isDir ? `${rel}/` : rel)) return true;
    let ignored = false;
    for (const { base, rules } of ctx.chain) {
      if (isDir && rules.outputs.has(rel)) return true;
      if (!rules.ig) continue;
      const sub = base === "" ? rel : rel.slice(base.length + 1);
      const r = rules.ig.test(isDir ? `${sub}/` : sub);
      if (r.ignored) ignored = true;
      else if (r.unignored) ignored = false;
    }
    return ignored && !this.git.paths().has(rel, isDir);
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

  /**
   * `present`: the directory's entry names when the caller has just listed it (a walk): only the
   * rule files among them are looked at, instead of a `stat` of each name the rules could come from
   * (ten system calls a directory, each resolving the whole path again: most of a deep walk's time).
   */
  private rulesOf(dirRel: string, present?: ReadonlySet<string>): DirRules {
    const now = Date.now();
    const hit = this.cache.get(dirRel);
    if (hit && now - hit.checkedAt < recheckMs) return hit;
    const names = [...ignoreFiles, ...this.manifests];
    const mtimes = names.map((n) => (present && !present.has(n) ? -1 : mtimeOf(join(this.root, dirRel, n))));
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
  /** An ignored file this accepts is listed all the same (the secret gate's git-ignored `.env`). */
  keepIgnoredFile?: (rel: string) => boolean;
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
 *
 * Its time is linear in the entries visited whatever the depth: an explicit stack of directories
 * (nested generators passed each entry up through one frame per level), and each entry judged
 * against the ignore rules by its own name (`contextOf`/`isIgnoredIn`). It stops between entries
 * once `signal` is aborted.
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
  // A start inside an ignored folder: everything below it is ignored too.
  if (opts.skipIgnored && start !== "" && rules.isIgnored(start, true)) return;

  interface Frame {
    dirRel: string;
    depth: number;
    entries: Dirent[];
    next: number;
    ctx: WalkContext | null;
  }
  const open = async (dirRel: string, depth: number, parent: Frame | null): Promise<Frame> => {
    const entries = await readDirSorted(join(root, dirRel));
    const names = new Set(entries.map((e) => e.name));
    // The start's own parents are not listed here: their rules are read the ordinary way.
    const ctx = opts.skipIgnored
      ? rules.contextOf(parent?.ctx ?? null, dirRel, parent || dirRel === "" ? names : undefined)
      : null;
    return { dirRel, depth, entries, next: 0, ctx };
  };
  const stack: Frame[] = [await open(start, 1, null)];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1] as Frame;
    const entry = frame.entries[frame.next++];
    if (entry === undefined) {
      stack.pop();
      continue;
    }
    if (opts.signal?.aborted) return;
    const rel = frame.dirRel === "" ? entry.name : `${frame.dirRel}/${entry.name}`;
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
    if (
      frame.ctx &&
      rules.isIgnoredIn(frame.ctx, rel, entry.name, isDir) &&
      (isDir || !opts.keepIgnoredFile?.(rel))
    )
      continue;
    if (!isDir) {
      if (files >= maxFiles) return;
      files++;
    }
    yield { rel, isDir };
    if (descend && frame.depth < maxDepth) stack.push(await open(rel, frame.depth + 1, frame));
  }
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
