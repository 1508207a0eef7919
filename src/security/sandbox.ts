/**
 * The one gate between paths and the file system. A path — from a caller, a language server
 * location, a `WorkspaceEdit`, the undo journal or a directory walk — is checked once, lexically and
 * by realpath, and comes out as a `CheckedPath`; code that reads or writes takes that type, so an
 * unchecked string cannot reach the disk by accident.
 *
 * The gate also owns the secret rule: a `CheckedPath` is never minted for a file the project may
 * not show (the secret patterns, applied to the path as spelled and to its symlink target). Tools
 * therefore never check secrets themselves. Listing tools, which may show a secret file's name but
 * not its content, get a `NamedPath`, which no reader or writer accepts.
 *
 * It also decides what the tools may never write (`protectedBy`: scalpel's own `.scalpel/` state
 * and version-control internals such as `.git/`, whose config runs commands) and refuses files that
 * are not plain: a hard link (another name of it may be a secret or lie outside), a device, FIFO or
 * socket. Because a link can be swapped between this check and the open, the reader and the writer
 * (`text/opened-path.ts`) ask the gate again (`admit`, registered per root) about the real file they
 * opened whenever a link was followed.
 */
import { lstatSync, realpathSync, type Stats } from "node:fs";
import { isAbsolute, join, posix, relative, sep } from "node:path";
import { AppError } from "../core/errors.js";
import { uriToPath } from "../lsp/uri.js";
import { registerGate } from "../text/confine.js";
import { assertPlainFile, isPlainFile } from "../text/opened-path.js";
import { realpathOfNearest, statExisting } from "./real-paths.js";
import { protectedIn, protectedPathError, secretFileError } from "./refusals.js";
import { SecretRules } from "./secrets.js";

declare const checked: unique symbol;
declare const named: unique symbol;

/** A path whose content may be read and written. */
export interface CheckedPath {
  /** Absolute host path (lexical: root + rel, symlinks inside the root are not expanded). */
  readonly abs: string;
  /** Project-relative, `/`-separated, `"."` for the root. */
  readonly rel: string;
  /**
   * Set when the tools may not write this path (it, or the file a link leads to, lies in one of
   * `protectedDirs`): the protected folder's name as found. Reading is unaffected.
   */
  readonly protectedBy?: string;
  readonly [checked]: true;
}

/**
 * A path inside the project whose name may be shown, content unknown: it may be secret. Only for
 * listing names (a directory to walk, entries to report); not assignable to `CheckedPath`.
 */
export interface NamedPath {
  readonly abs: string;
  readonly rel: string;
  readonly [named]: true;
}

/** Where a location sent by a language server points. */
export type Located =
  | { readonly kind: "file"; readonly path: CheckedPath }
  /**
   * Inside the project but secret: only its place (path, line) may be reported. `rel` is the path
   * as the location spells it; `file` the secret file it reaches (differs through a symlink), which
   * is what project.yml would have to allow.
   */
  | { readonly kind: "secret"; readonly rel: string; readonly file: string }
  /** Outside the project, not a local file, or unusable (e.g. a dangling link): drop it. */
  | { readonly kind: "outside" };

export interface ResolveOptions {
  /** Missing path → `file_not_found` instead of a path for a file to be created. */
  mustExist?: boolean;
  /** Checked only when the path exists. */
  kind?: "file" | "dir" | "any";
}

export class Sandbox {
  readonly root: string;

  /** `secrets`: the project's rules (project.yml `secrets`); the defaults when not given. */
  constructor(
    root: string,
    private readonly secrets: SecretRules = new SecretRules([]),
  ) {
    // The caller promises a realpath; re-resolving costs little and keeps comparisons exact.
    let real = root;
    try {
      real = realpathSync.native(root);
    } catch {
      // A root that does not exist yet is compared lexically.
    }
    this.root = real;
    registerGate(this.root, { admit: (abs, display, write) => this.admit(abs, display, write) });
  }

  /**
   * For the reader and the writer: the real path they opened after following a link must be inside
   * the root, not secret, and (for a write) not protected. Throws the same errors as `resolve`.
   */
  admit(realAbs: string, display: string, write: boolean): void {
    const inside = relative(this.root, realAbs);
    if (escapes(inside)) {
      throw outside(display, "It resolves (through a symbolic link) to a location outside the project.");
    }
    const rel = inside === "" ? "." : inside.split(sep).join("/");
    if (this.secrets.isSecret(rel)) {
      throw secretFileError([rel], `'${display}' leads to it through a symbolic link`);
    }
    const shielded = protectedIn(rel);
    if (write && shielded !== undefined) throw protectedPathError(display, shielded);
  }

  /**
   * Whether the content of a project-relative path is secret, for the one thing that must know
   * without showing it: the output gate (secret-gate.ts), which keeps that content out of answers.
   */
  holdsSecret(rel: string): boolean {
    return this.secrets.isSecret(rel);
  }

  /** A path whose content may be read or written; refuses secret files with `secret_file`. */
  resolve(relativePath: string, opts: ResolveOptions = {}): CheckedPath {
    const { abs, rel, realRel } = this.check(relativePath, opts, true);
    return mint(abs, rel, realRel);
  }

  /** A path whose name may be listed (a secret directory or file included), for listing tools. */
  resolveName(relativePath: string, opts: ResolveOptions = {}): NamedPath {
    const { abs, rel } = this.check(relativePath, opts, false);
    return { abs, rel } as NamedPath;
  }

  /**
   * For absolute paths scalpel produced itself (e.g. files an edit wrote); null when outside the
   * root or secret. Server locations go through `locate` / `fromUri`, which tell the two apart.
   */
  fromAbsolute(abs: string): CheckedPath | null {
    const where = this.locate(abs);
    return where.kind === "file" ? where.path : null;
  }

  /** Where an absolute path (e.g. from a language server) points: a readable file, a secret one, or outside. */
  locate(abs: string): Located {
    if (!isAbsolute(abs) || abs.includes("\0")) return { kind: "outside" };
    let rel = relative(this.root, abs);
    if (escapes(rel)) {
      // The same file may be spelled through a symlinked alias of the root (e.g. /tmp vs /private/tmp).
      const real = realpathOfNearest(abs);
      if (real === null) return { kind: "outside" };
      rel = relative(this.root, real.path);
      if (escapes(rel)) return { kind: "outside" };
      rel = join(rel, ...real.missing);
    }
    const relPosix = rel === "" ? "." : rel.split(sep).join("/");
    try {
      return { kind: "file", path: this.resolve(relPosix) };
    } catch (e) {
      if (e instanceof AppError && e.code === "secret_file") {
        const file = (e.details?.files as string[] | undefined)?.[0] ?? relPosix;
        return { kind: "secret", rel: relPosix, file };
      }
      return { kind: "outside" };
    }
  }

  /** For `file:` URIs sent by language servers; `outside` when not a file URI or outside the root. */
  fromUri(uri: string): Located {
    let abs: string;
    try {
      abs = uriToPath(uri);
    } catch {
      return { kind: "outside" };
    }
    return this.locate(abs);
  }

  /**
   * Mints the files a directory walk found below `start` (project-relative paths from `walkFiles`,
   * which never descends into a symlinked directory). Secret files, and links that leave the root or
   * point at a secret, yield null, so a walk skips them by construction. Cheap per file: an lstat,
   * and a realpath only for a symlink.
   */
  walker(start: CheckedPath): (rel: string) => CheckedPath | null {
    // The walk's directories are real below `start`, so a file's target is start's target + the rest.
    const startReal = this.realRel(start.abs);
    const prefix = start.rel === "." ? "" : `${start.rel}/`;
    return (rel) => {
      if (rel === start.rel) return start;
      if (!rel.startsWith(prefix) || unclean.test(rel)) return this.tryResolve(rel);
      if (this.secrets.isSecret(rel)) return null;
      const rest = rel.slice(prefix.length);
      const abs = `${start.abs}${sep}${sep === "/" ? rest : rest.split("/").join(sep)}`;
      let st: Stats;
      try {
        st = lstatSync(abs);
      } catch {
        return null;
      }
      if (st.isSymbolicLink()) return this.tryResolve(rel);
      // Hard links, devices, FIFOs and sockets: skipped like secrets (what `resolve` refuses).
      if (!isPlainFile(st)) return null;
      const realRel = startReal === start.rel ? rel : startReal === "." ? rest : `${startReal}/${rest}`;
      if (realRel !== rel && this.secrets.isSecret(realRel)) return null;
      return mint(abs, rel, realRel);
    };
  }

  private tryResolve(rel: string): CheckedPath | null {
    try {
      return this.resolve(rel);
    } catch {
      return null;
    }
  }

  /** Project-relative realpath of an existing path inside the root (its lexical spelling if that fails). */
  private realRel(abs: string): string {
    try {
      const rel = relative(this.root, realpathSync.native(abs));
      return rel === "" ? "." : rel.split(sep).join("/");
    } catch {
      return relative(this.root, abs).split(sep).join("/") || ".";
    }
  }

  private check(
    relativePath: string,
    opts: ResolveOptions,
    content: boolean,
  ): { abs: string; rel: string; realRel: string } {
    const rel = this.lexical(relativePath);
    if (content && this.secrets.isSecret(rel)) throw secretFileError([rel]);
    const abs = rel === "." ? this.root : join(this.root, ...rel.split("/"));
    const real = this.checkRealpath(abs, rel);
    if (content && real.rel !== rel && this.secrets.isSecret(real.rel)) {
      throw secretFileError([real.rel], `'${rel}' leads to it through a symbolic link`);
    }
    if (!real.exists) {
      if (opts.mustExist) {
        throw new AppError(
          "file_not_found",
          `'${rel}' does not exist in the project. Check the spelling, or use find_file / list_dir to locate it.`,
        );
      }
      return { abs, rel, realRel: real.rel };
    }
    const kind = opts.kind ?? "any";
    // The content of anything but a directory or a plain file (one name, not a device) is refused.
    const st = content || kind !== "any" ? statExisting(abs, rel) : null;
    if (content && st !== null && !st.isDirectory()) assertPlainFile(st, rel);
    if (st !== null && kind !== "any") {
      const isDir = st.isDirectory();
      if (kind === "file" && isDir) {
        throw new AppError(
          "invalid_argument",
          `'${rel}' is a directory, not a file. Use list_dir to see its contents.`,
        );
      }
      if (kind === "dir" && !isDir) {
        throw new AppError(
          "invalid_argument",
          `'${rel}' is a file, not a directory.${content ? " Use read_file to read it." : ""}`,
        );
      }
    }
    return { abs, rel, realRel: real.rel };
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
   * inside the root. Returns whether the path itself exists, and its project-relative real path.
   */
  private checkRealpath(abs: string, rel: string): { exists: boolean; rel: string } {
    const real = realpathOfNearest(abs);
    if (real === null) {
      throw outside(rel, "It is a symbolic link whose target does not exist or cannot be resolved.");
    }
    const inside = relative(this.root, real.path);
    if (escapes(inside)) {
      throw outside(rel, "It resolves (through a symbolic link) to a location outside the project.");
    }
    const realRel = [...(inside === "" ? [] : inside.split(sep)), ...real.missing].join("/") || ".";
    return { exists: real.missing.length === 0, rel: realRel };
  }
}

/** A CheckedPath, marked when the path as spelled or the file it leads to is protected. */
function mint(abs: string, rel: string, realRel: string): CheckedPath {
  const shielded = protectedIn(rel) ?? protectedIn(realRel);
  return (shielded === undefined ? { abs, rel } : { abs, rel, protectedBy: shielded }) as CheckedPath;
}

/** A spelling a walk never produces (`.`/`..` segments, empty segments, NUL, backslash): checked the slow way. */
const unclean = /(^|\/)\.{1,2}(\/|$)|\/\/|^\/|\/$|\0|\\/;

function escapes(rel: string): boolean {
  return rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel);
}

function outside(rel: string, why: string): AppError {
  return new AppError("path_outside_project", `Path '${rel}' is not allowed: ${why}`);
}
