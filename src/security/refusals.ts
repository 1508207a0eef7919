/**
 * The sandbox's refusals in one wording each, and the folders it never writes into: secret files,
 * protected folders (scalpel's own state, version-control internals).
 */
import { AppError } from "../core/errors.js";

/**
 * The refusal for secret files, one wording for every way a path can reach one. `why` says how the
 * path led there when the file was not named directly (a link, a server's edit).
 */
export function secretFileError(files: readonly string[], why?: string): AppError {
  const shown = files.slice(0, 10).map((f) => `'${f}'`);
  const list = shown.join(", ") + (files.length > 10 ? `, … (${files.length} files)` : "");
  const one = files.length === 1;
  const allow = files
    .slice(0, 3)
    .map((f) => `'!${f}'`)
    .join(", ");
  return new AppError(
    "secret_file",
    `${list} ${one ? "is a secret file" : "are secret files"}${why ? ` (${why})` : ""}: ${one ? "it matches" : "they match"} the secret patterns (built-in ones such as .env* and *.pem, or 'secrets' in .scalpel/project.yml), so scalpel neither shows nor changes ${one ? "it" : "them"}, and nothing was read or written. If ${one ? "it holds" : "they hold"} no secrets, allow ${one ? "it" : "them"} with ${allow} under 'secrets' in .scalpel/project.yml, then activate the project again.`,
    { files: [...files] },
  );
}

/**
 * Folders the tools never write into (reading them is up to the secret rules): scalpel's own state
 * (project.yml decides which commands run and which files are secret; the journal decides what undo
 * restores) and version-control internals (a `.git/config` or hook runs commands at the next `git`
 * call). Matched on any path segment, case-insensitively (case-insensitive file systems), so a
 * nested repository's or a `.git` file's (worktrees, submodules) are covered too. The memory store
 * and the journal write their own files without the tools.
 */
export const protectedDirs: readonly string[] = [".scalpel", ".git", ".hg", ".svn", ".bzr", "_darcs", ".jj"];
const protectedSet = new Set(protectedDirs);

/** The first protected segment of a project-relative path, as spelled there. */
export function protectedIn(rel: string): string | undefined {
  return rel.split("/").find((segment) => protectedSet.has(segment.toLowerCase()));
}

/** The refusal for writes into `protectedDirs`. */
export function protectedPathError(rel: string, dir: string): AppError {
  return new AppError(
    "protected_path",
    `'${rel}' is inside '${dir}', which scalpel never writes through its tools (${dir.toLowerCase() === ".scalpel" ? "scalpel's own configuration, trust and undo journal" : "version-control internals, which can run commands"}); nothing was written. Change it yourself outside scalpel if it is really needed; memories are written with write_memory / edit_memory.`,
    { relative_path: rel, protected: dir },
  );
}
