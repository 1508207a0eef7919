/**
 * Atomic replacement of a file's bytes: a temp file in the same directory, then a rename, so a
 * reader (a language server, another tool) sees the old bytes or the new ones, never half a file.
 * Only the serialised writer (`edits/apply`) and the memory store call this.
 */
import { randomBytes } from "node:crypto";
import { chmod, lstat, realpath, rename, stat, unlink, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/**
 * A symlink (already checked by the sandbox to stay inside the root) is written through, not
 * replaced. An existing file keeps its mode; `mode` applies to a new file.
 */
export async function writeFileAtomic(abs: string, bytes: Uint8Array, mode?: number): Promise<void> {
  let target = abs;
  try {
    if ((await lstat(abs)).isSymbolicLink()) target = await realpath(abs);
  } catch {
    // New file.
  }
  let keep = mode;
  try {
    keep = (await stat(target)).mode & 0o7777;
  } catch {
    // New file: default mode unless one was given.
  }
  const tmp = join(dirname(target), `.${basename(target)}.${randomBytes(4).toString("hex")}.scalpel-tmp`);
  try {
    await writeFile(tmp, bytes, { flag: "wx" });
    if (keep !== undefined) await chmod(tmp, keep);
    await rename(tmp, target);
  } catch (e) {
    await unlink(tmp).catch(() => {});
    throw e;
  }
}
