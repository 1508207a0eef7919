/**
 * Where the symbol table's rows live: off the JS heap, in append-only segment files of the index
 * folder (`<name>.paths`, `<name>.syms`), read back by offset and searched in place. A segment of a
 * read-only project, or one whose folder is not usable, lives in one growing Buffer instead.
 *
 * Why: held as strings, the rows were ~4 KB a file on the JS heap (84 MB at 20k files), and V8
 * lets the heap grow 2–4× past what is live between collections; scalpel's peak at 20k files was
 * 0.8–1.0 GB. A row is now read when a tree is built from it (a few KB, from the page cache), and
 * a pattern is looked up by scanning the paths file in 1 MiB chunks (5 MB at 5k files).
 *
 * The files sit in scalpel's own state folder, which is treated as untrusted like every stored
 * entry: nothing is followed (O_NOFOLLOW), only regular files are read (a FIFO would block), every
 * offset and length is checked against the file's size, and a record's checksum is verified by
 * the table before its text is used.
 */
import { closeSync, constants, fstatSync, openSync, readSync, unlinkSync, writeSync } from "node:fs";
import { lstat, readdir, unlink } from "node:fs/promises";

/** The most a single record may take: a forged length never allocates more. */
export const maxRecordBytes = 16 * 1024 * 1024;
/** The window of a scan: bounded, reused. */
const chunkBytes = 1024 * 1024;

/** Bytes appended at the end, read back by offset, searched for a needle. */
export interface Blob {
  readonly size: number;
  /** Appends and returns where the bytes start; throws on an I/O failure. */
  append(bytes: Buffer): number;
  /** The bytes at [at, at + len), or null when out of range or unreadable. */
  read(at: number, len: number): Buffer | null;
  /** Where `needle` next occurs at or after `from`, or -1. */
  find(needle: Buffer, from: number): number;
  close(): void;
}

function inRange(at: number, len: number, size: number): boolean {
  return (
    Number.isSafeInteger(at) &&
    Number.isSafeInteger(len) &&
    at >= 0 &&
    len >= 0 &&
    len <= maxRecordBytes &&
    at + len <= size
  );
}

export class MemoryBlob implements Blob {
  private buf = Buffer.alloc(0);
  size = 0;

  append(bytes: Buffer): number {
    if (this.size + bytes.length > this.buf.length) {
      const next = Buffer.allocUnsafe(Math.max(64 * 1024, (this.size + bytes.length) * 2));
      this.buf.copy(next, 0, 0, this.size);
      this.buf = next;
    }
    bytes.copy(this.buf, this.size);
    const at = this.size;
    this.size += bytes.length;
    return at;
  }

  read(at: number, len: number): Buffer | null {
    return inRange(at, len, this.size) ? this.buf.subarray(at, at + len) : null;
  }

  find(needle: Buffer, from: number): number {
    return this.buf.subarray(0, this.size).indexOf(needle, from);
  }

  close(): void {
    this.buf = Buffer.alloc(0);
    this.size = 0;
  }
}

/**
 * Closes the descriptor of a blob nobody closed: a project's symbol service is dropped with its
 * tables when another project is activated, and has no close of its own.
 */
const unclosed = new FinalizationRegistry<number>((fd) => {
  try {
    closeSync(fd);
  } catch {
    // Closed already.
  }
});

export class FileBlob implements Blob {
  private chunk: Buffer | null = null;
  private chunkAt = 0;
  private chunkLen = 0;

  private constructor(
    private fd: number,
    public size: number,
  ) {
    unclosed.register(this, fd, this);
  }

  /** A new file of this process (fails if the name exists), or an existing one to read. */
  static open(path: string, create: boolean): FileBlob | null {
    let fd: number;
    try {
      const flags = create
        ? constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW
        : constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
      fd = openSync(path, flags, 0o600);
    } catch {
      return null;
    }
    try {
      const st = fstatSync(fd);
      if (!st.isFile()) {
        closeSync(fd);
        return null;
      }
      return new FileBlob(fd, st.size);
    } catch {
      closeSync(fd);
      return null;
    }
  }

  append(bytes: Buffer): number {
    let done = 0;
    while (done < bytes.length)
      done += writeSync(this.fd, bytes, done, bytes.length - done, this.size + done);
    const at = this.size;
    this.size += bytes.length;
    return at;
  }

  read(at: number, len: number): Buffer | null {
    if (!inRange(at, len, this.size)) return null;
    const out = Buffer.allocUnsafe(len);
    try {
      let got = 0;
      while (got < len) {
        const n = readSync(this.fd, out, got, len - got, at + got);
        if (n === 0) return null;
        got += n;
      }
      return out;
    } catch {
      return null;
    }
  }

  find(needle: Buffer, from: number): number {
    const n = needle.length;
    if (n === 0) return from <= this.size ? from : -1;
    let pos = Math.max(0, from);
    while (pos + n <= this.size) {
      if (this.chunk === null || pos < this.chunkAt || pos + n > this.chunkAt + this.chunkLen) {
        if (!this.load(pos, n)) return -1;
      }
      const i = this.chunk!.subarray(0, this.chunkLen).indexOf(needle, pos - this.chunkAt);
      if (i >= 0) return this.chunkAt + i;
      if (this.chunkAt + this.chunkLen >= this.size) return -1;
      // The next window overlaps this one by n - 1 bytes: a needle across the seam is found there.
      pos = this.chunkAt + this.chunkLen - n + 1;
    }
    return -1;
  }

  /** Reads the window starting at `pos` (at least `n` bytes long). */
  private load(pos: number, n: number): boolean {
    const want = Math.max(chunkBytes, 2 * n);
    if (this.chunk === null || this.chunk.length < want) this.chunk = Buffer.allocUnsafe(want);
    const len = Math.min(want, this.size - pos);
    try {
      let got = 0;
      while (got < len) {
        const r = readSync(this.fd, this.chunk, got, len - got, pos + got);
        if (r === 0) break;
        got += r;
      }
      this.chunkAt = pos;
      this.chunkLen = got;
      return got >= n;
    } catch {
      this.chunk = null;
      return false;
    }
  }

  close(): void {
    unclosed.unregister(this);
    try {
      closeSync(this.fd);
    } catch {
      // Closed already.
    }
    this.fd = -1;
    this.chunk = null;
  }
}

/**
 * One segment: the paths file (every row's `\n/A\n/A/b\n…` text, searched by `find`), the symbols
 * file (the packed JSON), and which row starts where in the paths file, in offset order.
 */
export class Segment {
  /** Offsets in `paths` where a record starts, increasing; `owners[i]` is its file. */
  readonly starts: number[] = [];
  readonly owners: string[] = [];

  constructor(
    /** Its file name stem, or "" in memory. */
    readonly name: string,
    readonly paths: Blob,
    readonly syms: Blob,
    /** Written by this process (so its files may be removed by it). */
    readonly own: boolean,
  ) {}

  /** Appends one row's texts; where they went. */
  append(rel: string, paths: Buffer, syms: Buffer): { pathsAt: number; symsAt: number } {
    const symsAt = this.syms.append(syms);
    const pathsAt = this.paths.append(paths);
    this.starts.push(pathsAt);
    this.owners.push(rel);
    return { pathsAt, symsAt };
  }

  /** The index of the record holding `offset` of the paths file, or -1. */
  recordAt(offset: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.starts[mid]! <= offset) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  }

  close(): void {
    this.paths.close();
    this.syms.close();
  }
}

/** A segment of this process: new files in `dir`, or memory when `dir` is null or not writable. */
export function newSegment(dir: string | null): Segment {
  if (dir !== null) {
    const name = `seg-${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    const paths = FileBlob.open(`${dir}/${name}.paths`, true);
    const syms = paths ? FileBlob.open(`${dir}/${name}.syms`, true) : null;
    if (paths && syms) return new Segment(name, paths, syms, true);
    paths?.close();
  }
  return new Segment("", new MemoryBlob(), new MemoryBlob(), true);
}

/** A segment a stored table names, opened for reading, or null (missing, not a file, a bad name). */
export function openSegment(dir: string, name: string): Segment | null {
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(name)) return null;
  const paths = FileBlob.open(`${dir}/${name}.paths`, false);
  const syms = paths ? FileBlob.open(`${dir}/${name}.syms`, false) : null;
  if (paths && syms) return new Segment(name, paths, syms, false);
  paths?.close();
  return null;
}

/** Removes a segment's files (this process's own, after compaction); never fails. */
export function removeSegmentFiles(dir: string, name: string): void {
  for (const ext of [".paths", ".syms"]) {
    try {
      unlinkSync(`${dir}/${name}${ext}`);
    } catch {
      // Gone already, or in use where removing is refused: left for a later clean-up.
    }
  }
}

/**
 * How long a segment no stored table names is left alone: it may be another process's, not yet in
 * a snapshot (that process keeps reading it even once removed; its next restart rebuilds the rows).
 */
const staleMs = 10 * 60 * 1000;

/** Removes old segment files of the key folder `dir` that the stored table does not name. */
export async function removeStaleSegments(dir: string, keep: ReadonlySet<string>): Promise<void> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return;
  }
  for (const file of names) {
    const m = /^(seg-[A-Za-z0-9_-]+)\.(paths|syms)$/.exec(file);
    if (!m || keep.has(m[1]!)) continue;
    const st = await lstat(`${dir}/${file}`).catch(() => null);
    if (st && Date.now() - st.mtimeMs > staleMs) await unlink(`${dir}/${file}`).catch(() => {});
  }
}
