/**
 * The paths git tracks, read from the repository's index file (`.git/index`) by scalpel itself:
 * git never ignores a tracked file, so neither may listing, search or onboarding (zod tracks a
 * `package.json` that a `.gitignore` pattern matches). Reading the file instead of running git means
 * no configuration of the repository (fsmonitor, hooks, includes naming files elsewhere) can run a
 * program or make anything outside the root be read. The index is untrusted input: a file that does
 * not parse, or is larger than the bound, gives no tracked paths, never an error.
 *
 * Format (git's Documentation/gitformat-index): "DIRC", version 2, 3 or 4, entry count; each entry
 * holds 40 bytes of stat data, the object name (20 bytes, 32 in a sha256 repository), 16 bits of
 * flags (with v3, 16 more when the extended bit is set) and the path; v2/v3 pad each entry with NULs
 * to a multiple of 8, v4 writes the path as "strip N bytes of the previous path" plus a suffix.
 */
import { lstatSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/** An index larger than this is not read (git's own index of the Linux kernel is about 10 MiB). */
const maxIndexBytes = 256 * 1024 * 1024;

export interface TrackedPaths {
  /** True when the file at `rel` is tracked, or (`isDir`) some tracked file lies below `rel`. */
  has(rel: string, isDir: boolean): boolean;
}

const none: TrackedPaths = { has: () => false };

/**
 * Tracked paths of the repository whose `.git` folder is the root's own (a `.git` that is a file
 * or a link points outside the root, and is not followed). Re-read when the index file changes.
 */
export class GitIndex {
  private stamp = "";
  private current: TrackedPaths = none;
  private checkedAt = Number.NEGATIVE_INFINITY;

  /** @param recheckMs how long the index is trusted before its stat is looked at again (a walk asks per path). */
  constructor(
    private readonly root: string,
    private readonly recheckMs = 2000,
  ) {}

  paths(): TrackedPaths {
    const now = Date.now();
    if (now - this.checkedAt < this.recheckMs) return this.current;
    this.checkedAt = now;
    const gitDir = join(this.root, ".git");
    let stamp = "";
    try {
      if (!lstatSync(gitDir).isDirectory()) return this.forget();
      const st = lstatSync(join(gitDir, "index"));
      if (!st.isFile() || st.size > maxIndexBytes) return this.forget();
      stamp = `${st.mtimeMs}:${st.size}:${st.ino}`;
    } catch {
      return this.forget();
    }
    if (stamp !== this.stamp) {
      this.stamp = stamp;
      this.current = readIndex(gitDir);
    }
    return this.current;
  }

  private forget(): TrackedPaths {
    this.stamp = "";
    this.current = none;
    return none;
  }
}

function readIndex(gitDir: string): TrackedPaths {
  try {
    const bytes = readFileSync(join(gitDir, "index"));
    const files = parseIndex(bytes, objectNameBytes(gitDir));
    if (files === null) return none;
    const dirs = new Set<string>();
    for (const f of files) {
      for (let i = f.indexOf("/"); i > 0; i = f.indexOf("/", i + 1)) dirs.add(f.slice(0, i));
    }
    return { has: (rel, isDir) => (isDir ? dirs.has(rel) : files.has(rel)) };
  } catch {
    return none;
  }
}

/** 32 in a repository whose objects are named by sha256, else 20. */
function objectNameBytes(gitDir: string): number {
  try {
    if (statSync(join(gitDir, "config")).size > 1024 * 1024) return 20;
    const text = readFileSync(join(gitDir, "config"), "utf8");
    return /^\s*objectformat\s*=\s*sha256\s*$/im.test(text) ? 32 : 20;
  } catch {
    return 20;
  }
}

/** The tracked paths, or null when the bytes are not an index scalpel can read. */
export function parseIndex(bytes: Buffer, hashBytes = 20): Set<string> | null {
  if (bytes.length < 12 || bytes.toString("latin1", 0, 4) !== "DIRC") return null;
  const version = bytes.readUInt32BE(4);
  if (version < 2 || version > 4) return null;
  const count = bytes.readUInt32BE(8);
  const fixed = 40 + hashBytes + 2;
  // Every entry takes at least its fixed part and a NUL: a count the file cannot hold is a lie.
  if (count > bytes.length / (fixed + 1)) return null;
  const out = new Set<string>();
  let at = 12;
  let previous = "";
  for (let n = 0; n < count; n++) {
    const start = at;
    if (at + fixed > bytes.length) return null;
    const flags = bytes.readUInt16BE(at + 40 + hashBytes);
    at += fixed;
    if (version >= 3 && flags & 0x4000) at += 2;
    let path: string;
    if (version === 4) {
      let strip = 0;
      for (let shift = 0; ; shift += 7) {
        if (at >= bytes.length || shift > 28) return null;
        const b = bytes[at++]!;
        // git's offset varint: each continuation adds one before shifting.
        strip = shift === 0 ? b & 0x7f : ((strip + 1) << 7) | (b & 0x7f);
        if ((b & 0x80) === 0) break;
      }
      const end = bytes.indexOf(0, at);
      if (end < 0 || strip > previous.length) return null;
      path = previous.slice(0, previous.length - strip) + bytes.toString("utf8", at, end);
      at = end + 1;
    } else {
      const end = bytes.indexOf(0, at);
      if (end < 0) return null;
      path = bytes.toString("utf8", at, end);
      // 1 to 8 NULs, so that the entry's length is a multiple of 8.
      at = start + Math.ceil((end - start + 1) / 8) * 8;
    }
    previous = path;
    out.add(path);
  }
  return out;
}
