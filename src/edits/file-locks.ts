/**
 * Per-file async locks for the writer. A compare-and-write (read the file, check it still holds
 * the text an edit was computed against, write) must not interleave with another one on the same
 * file, or both callers see "unchanged" and the second write silently drops the first edit. The
 * locks are process-wide (every project, every tool) and keyed by the file's real path, so two
 * spellings of one file (a symlink, a root alias) share one lock.
 */
import { realpath } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** Tail of the queue per key: resolves when the last holder releases. */
const tails = new Map<string, Promise<void>>();

/** Real path of `abs`, or of its nearest existing ancestor joined with the missing rest. */
export async function lockKey(abs: string): Promise<string> {
  try {
    return await realpath(abs);
  } catch {
    const parent = dirname(abs);
    if (parent === abs) return abs;
    return join(await lockKey(parent), basename(abs));
  }
}

async function acquire(key: string): Promise<() => void> {
  const previous = tails.get(key) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(() => mine);
  tails.set(key, tail);
  await previous;
  return () => {
    release();
    // The last holder leaves no entry behind.
    if (tails.get(key) === tail) tails.delete(key);
  };
}

/**
 * Runs `fn` while holding the locks of every path in `absPaths`. Locks are taken in sorted order of
 * their keys, so two plans that touch the same files in different orders cannot deadlock.
 */
export async function withFileLocks<T>(absPaths: readonly string[], fn: () => Promise<T>): Promise<T> {
  const keys = [...new Set(await Promise.all(absPaths.map(lockKey)))].sort();
  const releases: Array<() => void> = [];
  try {
    for (const key of keys) releases.push(await acquire(key));
    return await fn();
  } finally {
    for (const release of releases.reverse()) release();
  }
}

/** Number of files currently locked or waited for (for tests). */
export function lockedFileCount(): number {
  return tails.size;
}
