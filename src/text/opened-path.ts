/**
 * Opening project files so that a symbolic link swapped by another process cannot redirect the
 * read or the write: the final component is opened with O_NOFOLLOW (a link there is resolved first
 * and its target opened, again without following), the descriptor is asked which file it really
 * holds, and that file is what the gate (`confine.ts`) judges. On Linux the kernel names the file
 * behind a descriptor (`/proc/self/fd/N`), which no later swap can change; elsewhere the realpath is
 * taken again and must lead to the same device and inode (a narrower window, not none).
 *
 * Only regular files with a single name are read or written: a hard link can give a secret file
 * (or one outside the project, on the same file system) a harmless name, and nothing tells where
 * its other names are; devices, FIFOs and sockets are not text and can block or have effects when
 * read. A FIFO is opened with O_NONBLOCK so that the open itself cannot hang.
 */
import { constants, type Stats } from "node:fs";
import { type FileHandle, lstat, open, readlink, realpath } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { AppError } from "../core/errors.js";
import { gateFor } from "./confine.js";

const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY } = constants;
/** What O_NOFOLLOW answers for a final link: ELOOP on Linux and macOS, EMLINK on FreeBSD. */
const linkCodes = new Set(["ELOOP", "EMLINK"]);

export interface OpenedFile {
  handle: FileHandle;
  stat: Stats;
}

/**
 * Opens `abs` for reading: a regular file with one name whose real path the project's gate admits.
 * `display` names it in errors (a project-relative path, never the host path).
 */
export async function openForRead(abs: string, display: string): Promise<OpenedFile> {
  const flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK;
  let handle: FileHandle;
  let opened = abs;
  try {
    try {
      handle = await open(abs, flags);
    } catch (e) {
      if (!linkCodes.has(errno(e))) throw e;
      opened = await realpath(abs);
      handle = await open(opened, flags);
    }
  } catch (e) {
    throw openError(e, display);
  }
  try {
    const stat = await handle.stat();
    if (stat.isDirectory()) {
      throw new AppError("invalid_argument", `'${display}' is a directory, not a file. Use list_dir.`);
    }
    assertPlainFile(stat, display);
    const actual = await realPathOf(handle, opened, stat, display);
    if (actual !== abs) gateFor(abs)?.admit(actual, display, false);
    return { handle, stat };
  } catch (e) {
    await handle.close();
    throw e;
  }
}

/**
 * Opens the directory a file is to be written in, after resolving `abs` (a final link is written
 * through, to its target). `base` is the directory to create the temp file and rename in: on Linux
 * the descriptor's own `/proc/self/fd/N`, which stays that directory whatever is renamed meanwhile.
 * The gate admits the real path of the file to be written whenever it differs from `abs`.
 */
export async function openDirForWrite(
  abs: string,
  display: string,
): Promise<{ dir: FileHandle; base: string; name: string; real: string }> {
  let target = abs;
  const own = await lstat(abs).catch(() => null);
  if (own?.isSymbolicLink())
    target = await realpath(abs).catch((e) => Promise.reject(writeOpenError(e, display)));
  const dirPath = await realpath(dirname(target)).catch((e) => Promise.reject(writeOpenError(e, display)));
  const name = basename(target);
  let dir: FileHandle;
  try {
    dir = await open(dirPath, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
  } catch (e) {
    throw writeOpenError(e, display);
  }
  try {
    const stat = await dir.stat();
    const realDir = await realPathOf(dir, dirPath, stat, display);
    const real = join(realDir, name);
    if (real !== abs) gateFor(abs)?.admit(real, display, true);
    const base = (await procFd(dir)) ?? realDir;
    return { dir, base, name, real };
  } catch (e) {
    await dir.close();
    throw e;
  }
}

/** A regular file with exactly one name: the only kind whose content is read or written. */
export function isPlainFile(stat: Stats): boolean {
  return stat.isFile() && stat.nlink === 1;
}

/** Refuses anything but a plain file (`isPlainFile`), saying which rule it broke. */
export function assertPlainFile(stat: Stats, display: string): void {
  if (isPlainFile(stat)) return;
  if (!stat.isFile()) {
    throw new AppError(
      "unsupported_file",
      `'${display}' is not a regular file (a device, FIFO or socket); scalpel reads and writes only regular files.`,
    );
  }
  if (stat.nlink > 1) {
    throw new AppError(
      "unsupported_file",
      `'${display}' is a hard link (the file has ${stat.nlink} names); scalpel cannot tell whether another name of it is a secret file or lies outside the project, so it neither reads nor writes it. If it holds nothing secret, replace it with a copy (cp '${display}' tmp && mv tmp '${display}').`,
    );
  }
  throw changedMeanwhile(display); // no name left: deleted after it was opened
}

/** The real path of the file or directory behind `handle`, opened as `opened`. */
export async function realPathOf(
  handle: FileHandle,
  opened: string,
  stat: Stats,
  display: string,
): Promise<string> {
  const viaProc = await procPath(handle);
  if (viaProc !== null) {
    // A file deleted (or renamed away and replaced) after the open is named "… (deleted)".
    if (viaProc.endsWith(" (deleted)")) throw changedMeanwhile(display);
    return viaProc;
  }
  const real = await realpath(opened).catch(() => null);
  const again = real === null ? null : await lstat(real).catch(() => null);
  if (real === null || again === null || again.dev !== stat.dev || again.ino !== stat.ino) {
    throw changedMeanwhile(display);
  }
  return real;
}

let procWorks: boolean | undefined;

/** `/proc/self/fd/N` when this system has it (Linux), else null. */
export async function procFd(handle: FileHandle): Promise<string | null> {
  return (await procPath(handle)) === null ? null : `/proc/self/fd/${handle.fd}`;
}

async function procPath(handle: FileHandle): Promise<string | null> {
  if (procWorks === false) return null;
  try {
    const path = await readlink(`/proc/self/fd/${handle.fd}`);
    procWorks = true;
    return path;
  } catch (e) {
    if (procWorks === undefined && errno(e) === "ENOENT") procWorks = false;
    if (procWorks === false) return null;
    throw e;
  }
}

function changedMeanwhile(display: string): AppError {
  return new AppError(
    "edit_conflict",
    `'${display}' (or a link on its way) changed while scalpel opened it; nothing was read or written. Retry.`,
    { reason: "stale", relative_path: display },
  );
}

/**
 * For the write path: a link met where none may be is a change made meanwhile; every other failure
 * stays the system's error, which the writer reports as write_failed with its code.
 */
export function writeOpenError(e: unknown, display: string): unknown {
  return linkCodes.has(errno(e)) ? changedMeanwhile(display) : e;
}

function openError(e: unknown, display: string): unknown {
  if (e instanceof AppError) return e;
  const code = errno(e);
  if (code === "ENOENT" || code === "ENOTDIR") {
    return new AppError(
      "file_not_found",
      `'${display}' does not exist. Use find_file or list_dir to locate it.`,
    );
  }
  if (linkCodes.has(code)) return changedMeanwhile(display);
  if (code === "EACCES" || code === "EPERM") {
    return new AppError("file_read_only", `'${display}' cannot be opened: permission denied.`);
  }
  return new AppError("internal", `Cannot open '${display}' (${code || "unknown error"}).`);
}

function errno(e: unknown): string {
  return (e as NodeJS.ErrnoException | undefined)?.code ?? "";
}
