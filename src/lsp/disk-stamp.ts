/**
 * What an open document remembers of its file on disk (size, mtime, inode and when they were
 * read), and when that memory can be trusted without reading the text again.
 */
import type { Stats } from "node:fs";
import { stat } from "node:fs/promises";

/** Size + mtime + inode of a file, and when they were taken. */
export interface DiskStamp {
  key: string;
  mtimeMs: number;
  takenAt: number;
}

/**
 * Filesystems with coarse timestamps (1 s, 2 s on FAT) can give a file rewritten twice within one
 * tick the same size and mtime: a stamp taken this close to the mtime is not trusted, the text is
 * read and compared instead.
 */
export const unsureWithinMs = 2_000;

export function stampOf(s: Stats, takenAt = Date.now()): DiskStamp {
  return { key: `${s.size}:${s.mtimeMs}:${s.ino}`, mtimeMs: s.mtimeMs, takenAt };
}

export async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
