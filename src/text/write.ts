/**
 * Atomic replacement of a file's bytes: a temp file in the same directory, then a rename, so a
 * reader (a language server, another tool) sees the old bytes or the new ones, never half a file.
 * Only the serialised writer (`edits/apply`), the undo journal, the memory store and the symbol
 * index (`symbols/index-store`) call this.
 *
 * The directory is opened first and verified (`openDirForWrite`); the temp file is created in it
 * with O_EXCL (which never follows a link) and renamed over the name, which replaces whatever is
 * there and follows nothing. A link swapped in meanwhile therefore cannot send the bytes outside
 * the project: on Linux both steps go through the directory's descriptor.
 */
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { type FileHandle, lstat, mkdir, open, realpath, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { AppError } from "../core/errors.js";
import { gateFor } from "./confine.js";
import { assertPlainFile, openDirForWrite, procFd, realPathOf, writeOpenError } from "./opened-path.js";

/**
 * A symlink (already checked by the sandbox to stay inside the root) is written through, not
 * replaced. An existing file keeps its mode and must be writable by its owner (a `chmod 444` file
 * is refused, not replaced); `mode` applies to a new file. `display` names the file in errors.
 */
export async function writeFileAtomic(
  abs: string,
  bytes: Uint8Array,
  mode?: number,
  display = "the file",
): Promise<void> {
  const { dir, base, name } = await openDirForWrite(abs, display);
  const tmp = join(base, `.${name}.${randomBytes(4).toString("hex")}.scalpel-tmp`);
  try {
    const existing = await lstat(join(base, name)).catch((e: NodeJS.ErrnoException) => {
      if (e.code === "ENOENT") return null;
      throw e;
    });
    let keep = mode;
    if (existing !== null) {
      if (existing.isSymbolicLink()) {
        throw new AppError(
          "edit_conflict",
          `'${display}' became a symbolic link while scalpel wrote it; nothing was written. Retry.`,
          { reason: "stale", relative_path: display },
        );
      }
      assertPlainFile(existing, display);
      assertWritableMode(existing.mode, display);
      keep = existing.mode & 0o7777;
    }
    const file = await open(tmp, "wx", keep ?? 0o666);
    try {
      await file.writeFile(bytes);
      // The umask may have narrowed the mode given to open.
      if (keep !== undefined) await file.chmod(keep);
    } finally {
      await file.close();
    }
    await rename(tmp, join(base, name));
  } catch (e) {
    await unlink(tmp).catch(() => {});
    throw e;
  } finally {
    await dir.close();
  }
}

/**
 * A file whose owner may not write it was made read-only on purpose (`chmod 444`): scalpel does not
 * replace it, although the rename into its directory would succeed.
 */
export function assertWritableMode(mode: number, display: string): void {
  if ((mode & 0o200) === 0) {
    throw new AppError(
      "file_read_only",
      `'${display}' is read-only (mode ${(mode & 0o777).toString(8)}); scalpel does not overwrite read-only files, and nothing was written. Make it writable first (chmod u+w) if it should be edited.`,
    );
  }
}

/**
 * Creates `dirAbs` and its missing parents, for a new file. Returns the folders created (lexical
 * paths, deepest first) so that a failed edit can remove them. Each folder is made inside the one
 * before it through that folder's descriptor (O_NOFOLLOW), starting from the nearest existing
 * ancestor, whose real place the gate judges: a link swapped on the way cannot make scalpel create
 * folders outside the project (`mkdir -p` would follow it).
 */
export async function makeDirs(dirAbs: string, display = "the file"): Promise<string[]> {
  const missing: string[] = [];
  let existing = dirAbs;
  while ((await lstat(existing).catch(() => null)) === null) {
    const parent = dirname(existing);
    if (parent === existing) break;
    missing.unshift(basename(existing));
    existing = parent;
  }
  if (missing.length === 0) return [];
  const flags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
  let dir: FileHandle;
  try {
    dir = await open(await realpath(existing), flags);
  } catch (e) {
    throw writeOpenError(e, display);
  }
  try {
    let realDir = await realPathOf(dir, existing, await dir.stat(), display);
    const target = join(realDir, ...missing);
    if (target !== dirAbs) gateFor(dirAbs)?.admit(target, display, true);
    const created: string[] = [];
    let lexical = existing;
    for (const name of missing) {
      const base = (await procFd(dir)) ?? realDir;
      const made = await mkdir(join(base, name)).then(
        () => true,
        (e: NodeJS.ErrnoException) => {
          if (e.code === "EEXIST") return false; // made meanwhile by someone else: fine if it is a folder
          throw e;
        },
      );
      let next: FileHandle;
      try {
        next = await open(join(base, name), flags);
      } catch (e) {
        throw writeOpenError(e, display);
      }
      await dir.close();
      dir = next;
      realDir = join(realDir, name);
      lexical = join(lexical, name);
      if (made) created.unshift(lexical);
    }
    return created;
  } finally {
    await dir.close();
  }
}
