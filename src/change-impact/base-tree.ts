/**
 * The base side of a change, read from git's objects only (process/git.ts says why nothing else):
 * the commit `base` names, the blobs of its tree, and a blob's text.
 */
import { AppError } from "../core/errors.js";
import type { Logger } from "../core/log.js";
import { ownGitDir, runGit } from "../process/git.js";

export interface BaseTree {
  /** The commit's full object name. */
  commit: string;
  /** Path (repository-relative, `/`) → blob object name, regular and executable files. */
  blobs: Map<string, string>;
  /** Submodules' paths: their files are another repository's, never this change's. */
  submodules: string[];
  /** The blob's text (UTF-8). */
  read(blob: string): Promise<string>;
}

/**
 * A tree path scalpel may use as a project path. Objects are the repository's to write: a crafted
 * tree can name `../x`, an absolute path or `.git/config` (git's own checkout refuses such entries;
 * its object store holds them), and a path is joined to the root (a deleted file's is opened as a
 * document of its server, shown the base text).
 */
function plainPath(path: string): boolean {
  if (path === "" || path.startsWith("/") || path.includes("\\") || path.includes("\0")) return false;
  return path
    .split("/")
    .every((part) => part !== "" && part !== "." && part !== ".." && part.toLowerCase() !== ".git");
}

/** Git's own messages can name host paths: only their first line's gist is shown, never the path. */
function gist(stderr: string): string {
  const line = stderr.split("\n").find((l) => l.trim() !== "") ?? "";
  return line.replace(/'[^']*\/[^']*'/g, "'…'").slice(0, 200);
}

export async function baseTree(
  root: string,
  base: string,
  log: Logger,
  signal?: AbortSignal,
): Promise<BaseTree> {
  const own = ownGitDir(root);
  if ("refused" in own) {
    throw new AppError(
      "invalid_argument",
      `The project root is not a git repository scalpel reads (${own.refused}): scalpel reads only a repository whose .git folder is in the project root and holds its own objects. Run \`git init\` and commit a base, or activate the repository's root.`,
    );
  }
  // An argument starting with "-" would be read as an option.
  if (base.startsWith("-") || base.includes("\0") || base.trim() === "") {
    throw new AppError(
      "invalid_argument",
      `base '${base}' is not a commit-ish: give a branch, tag or commit.`,
    );
  }
  const opts = signal ? { signal } : {};
  const parsed = await runGit(
    root,
    ["rev-parse", "--verify", "--quiet", "--end-of-options", `${base}^{commit}`],
    opts,
    log,
  );
  const commit = parsed.stdout.trim();
  if (parsed.spawnError) {
    throw new AppError(
      "not_supported",
      "git is not installed or not on PATH: install git to compare with a base.",
    );
  }
  if (parsed.exitCode !== 0 || !/^[0-9a-f]{40,64}$/.test(commit)) {
    const why = gist(parsed.stderr);
    throw new AppError(
      "invalid_argument",
      `base '${base}' names no commit of this repository${why ? ` (git: ${why})` : ""}: give a branch, tag or commit that exists (a repository without commits has no HEAD yet).`,
    );
  }
  const listed = await runGit(root, ["ls-tree", "-r", "-z", "--full-tree", commit], opts, log);
  if (listed.exitCode !== 0 || listed.outputCut) {
    throw new AppError(
      "internal",
      `git could not list the base tree (${gist(listed.stderr) || "output too large"}).`,
    );
  }
  const blobs = new Map<string, string>();
  const submodules: string[] = [];
  for (const entry of listed.stdout.split("\0")) {
    // "<mode> <type> <object>\t<path>"
    const tab = entry.indexOf("\t");
    if (tab < 0) continue;
    const [mode, type, object] = entry.slice(0, tab).split(" ");
    if (type === "commit") submodules.push(entry.slice(tab + 1));
    if (type !== "blob" || object === undefined || mode === "120000") continue;
    if (plainPath(entry.slice(tab + 1))) blobs.set(entry.slice(tab + 1), object);
  }
  return {
    commit,
    blobs,
    submodules,
    async read(blob) {
      const shown = await runGit(
        root,
        ["cat-file", "blob", blob],
        { ...opts, maxOutputChars: 16 * 1024 * 1024 },
        log,
      );
      if (shown.exitCode !== 0 || shown.outputCut) {
        throw new AppError(
          "internal",
          `git could not read a base file (${gist(shown.stderr) || "too large"}).`,
        );
      }
      return shown.stdout;
    },
  };
}
