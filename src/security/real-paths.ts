/** File-system look-ups the sandbox makes about paths it has judged lexically. */
import { lstatSync, realpathSync, type Stats, statSync } from "node:fs";
import { dirname } from "node:path";
import { AppError } from "../core/errors.js";

/**
 * Walks up to the nearest existing ancestor and realpaths it. `missing` are the components below it
 * that do not exist yet. A dangling symlink on the way yields null: writing through it would create
 * its target, which may be anywhere.
 */
export function realpathOfNearest(abs: string): { path: string; missing: string[] } | null {
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

/** `statSync` for a path just found to exist; vanished meanwhile → file_not_found. */
export function statExisting(abs: string, rel: string): Stats {
  try {
    return statSync(abs);
  } catch {
    throw new AppError(
      "file_not_found",
      `'${rel}' does not exist (any more). Use find_file or list_dir to locate it.`,
    );
  }
}

export function isLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}
