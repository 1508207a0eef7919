/**
 * The one gate between caller-supplied paths and the file system. A path is checked once, lexically
 * and by realpath, and comes out as a `CheckedPath`; code that reads or writes takes that type, so
 * an unchecked string cannot reach the disk by accident.
 */
import { lstatSync, realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, posix, relative, sep } from "node:path";
import { AppError } from "../errors.js";
import { uriToPath } from "../lsp/uri.js";

declare const checked: unique symbol;

export interface CheckedPath {
  /** Absolute host path (lexical: root + rel, symlinks inside the root are not expanded). */
  readonly abs: string;
  /** Project-relative, `/`-separated, `"."` for the root. */
  readonly rel: string;
  readonly [checked]: true;
}

export interface ResolveOptions {
  /** Missing path → `file_not_found` instead of a path for a file to be created. */
  mustExist?: boolean;
  /** Checked only when the path exists. */
  kind?: "file" | "dir" | "any";
}

export class Sandbox {
  readonly root: string;

  constructor(root: string) {
    // The caller promises a realpath; re-resolving costs little and keeps comparisons exact.
    let real = root;
    try {
      real = realpathSync.native(root);
    } catch {
      // A root that does not exist yet is compared lexically.
    }
    this.root = real;
  }

  resolve(relativePath: string, opts: ResolveOptions = {}): CheckedPath {
    const rel = this.lexical(relativePath);
    const abs = rel === "." ? this.root : join(this.root, ...rel.split("/"));
    const exists = this.checkRealpath(abs, rel);
    if (!exists) {
      if (opts.mustExist) {
        throw new AppError(
          "file_not_found",
          `'${rel}' does not exist in the project. Check the spelling, or use find_file / list_dir to locate it.`,
        );
      }
      return make(abs, rel);
    }
    const kind = opts.kind ?? "any";
    if (kind !== "any") {
      const isDir = statSync(abs).isDirectory();
      if (kind === "file" && isDir) {
        throw new AppError(
          "invalid_argument",
          `'${rel}' is a directory, not a file. Use list_dir to see its contents.`,
        );
      }
      if (kind === "dir" && !isDir) {
        throw new AppError(
          "invalid_argument",
          `'${rel}' is a file, not a directory. Use read_file to read it.`,
        );
      }
    }
    return make(abs, rel);
  }

  /** For absolute paths produced by scalpel or a language server; null when outside the root. */
  fromAbsolute(abs: string): CheckedPath | null {
    if (!isAbsolute(abs) || abs.includes("\0")) return null;
    let rel = relative(this.root, abs);
    if (escapes(rel)) {
      // The same file may be spelled through a symlinked alias of the root (e.g. /tmp vs /private/tmp).
      const real = realpathOfNearest(abs);
      if (real === null) return null;
      rel = relative(this.root, real.path);
      if (escapes(rel)) return null;
      rel = join(rel, ...real.missing);
    }
    const relPosix = rel === "" ? "." : rel.split(sep).join("/");
    try {
      return this.resolve(relPosix);
    } catch {
      return null;
    }
  }

  /** For `file:` URIs sent by language servers; null when not a file URI or outside the root. */
  fromUri(uri: string): CheckedPath | null {
    let abs: string;
    try {
      abs = uriToPath(uri);
    } catch {
      return null;
    }
    return this.fromAbsolute(abs);
  }

  /** Normalises the caller's spelling to a clean relative path, or refuses it. */
  private lexical(input: string): string {
    if (typeof input !== "string") throw outside("(not a string)", "Pass the path as a string.");
    if (input.includes("\0")) {
      throw outside(JSON.stringify(input).slice(1, -1), "The path contains a NUL byte.");
    }
    if (input.includes("\\")) {
      throw outside(input, "Use '/' as the separator; backslashes are not accepted in paths.");
    }
    if (isAbsolute(input) || /^[a-zA-Z]:/.test(input)) {
      const inside = relative(this.root, input);
      const suggestion =
        input.startsWith("/") && !escapes(inside) && inside !== ""
          ? ` Use the path relative to the project root instead: '${inside.split(sep).join("/")}'.`
          : " Use a path relative to the project root, e.g. 'src/index.ts'.";
      throw new AppError("path_outside_project", `Absolute paths are not accepted.${suggestion}`);
    }
    if (input === "~" || input.startsWith("~/")) {
      throw outside(input, "'~' is not expanded; use a path relative to the project root.");
    }
    const trimmed = input.trim() === "" ? "." : input;
    const norm = posix.normalize(trimmed).replace(/\/+$/, "");
    if (norm === ".." || norm.startsWith("../")) {
      throw outside(input, "It leaves the project root; use a path inside the project.");
    }
    return norm === "" ? "." : norm;
  }

  /**
   * Realpath of the path, or of its nearest existing ancestor for paths still to be created, must be
   * inside the root. Returns whether the path itself exists.
   */
  private checkRealpath(abs: string, rel: string): boolean {
    const real = realpathOfNearest(abs);
    if (real === null) {
      throw outside(rel, "It is a symbolic link whose target does not exist or cannot be resolved.");
    }
    const inside = relative(this.root, real.path);
    if (escapes(inside)) {
      throw outside(rel, "It resolves (through a symbolic link) to a location outside the project.");
    }
    return real.missing.length === 0;
  }
}

function make(abs: string, rel: string): CheckedPath {
  return { abs, rel } as CheckedPath;
}

function escapes(rel: string): boolean {
  return rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel);
}

function outside(rel: string, why: string): AppError {
  return new AppError("path_outside_project", `Path '${rel}' is not allowed: ${why}`);
}

/**
 * Walks up to the nearest existing ancestor and realpaths it. `missing` are the components below it
 * that do not exist yet. A dangling symlink on the way yields null: writing through it would create
 * its target, which may be anywhere.
 */
function realpathOfNearest(abs: string): { path: string; missing: string[] } | null {
  const missing: string[] = [];
  let current = abs;
  for (;;) {
    try {
      return { path: realpathSync.native(current), missing };
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") return null;
      if (isLink(current)) return null;
      const parent = dirname(current);
      if (parent === current) return null;
      missing.unshift(current.slice(parent.length).replace(/^[/\\]/, ""));
      current = parent;
    }
  }
}

function isLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}
