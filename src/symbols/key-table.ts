/**
 * The table of one index key: its rows by file (the small fields on the heap, the texts in
 * segments, symbols/segment.ts), the segments they are in, and this process's own segment, where
 * new rows are appended. Stored as the key's `table.json` (symbols/index-store.ts) with the names
 * of its segments; a stored row is checked against its segment's size when loaded and its
 * checksum when read, so a forged or torn snapshot costs a rebuild, never a wrong tree.
 */
import type { DocumentSymbol } from "vscode-languageserver-protocol";
import type { Logger } from "../core/log.js";
import type { StoredTable, TableRow } from "./index-store.js";
import { newSegment, openSegment, removeSegmentFiles, type Segment } from "./segment.js";
import type { StatLike } from "./stat-all.js";
import { rowSum, rowTexts, statFields, type TableEntry } from "./table.js";

/** Compacted when its segments hold this many more bytes than its live rows (and past `slackBytes`). */
const wasteRatio = 2;
const slackBytes = 4 * 1024 * 1024;
/** Segments a table may span before its rows are copied into one (each restart that writes adds one). */
const maxSegments = 3;

export class KeyTable {
  readonly rows = new Map<string, TableEntry>();
  segs: Segment[] = [];
  private own: Segment | null = null;

  constructor(
    /** The key's folder, or null: rows are then kept in memory (read-only projects). */
    private readonly dir: string | null,
    private readonly log: Logger,
  ) {}

  /**
   * Records a file's symbols for the text with `hash`. The same text's row only takes the new size,
   * mtime and freshness: one key and one text always give the same symbols.
   */
  set(
    rel: string,
    hash: string,
    st: StatLike | null,
    symbols: readonly DocumentSymbol[] | null,
    fresh: boolean,
  ): void {
    const known = this.rows.get(rel);
    if (known && known.hash === hash) {
      Object.assign(known, statFields(st), { fresh });
      return;
    }
    if (symbols === null) return;
    const texts = rowTexts(symbols);
    const entry = this.append(rel, texts.paths, texts.syms);
    if (entry) this.rows.set(rel, { ...entry, hash, ...statFields(st), fresh });
  }

  /** The snapshot to store: rows in file segments (rows held in memory are rebuilt on restart). */
  stored(): StoredTable {
    const files = this.segs.filter((s) => s.name !== "");
    const index = new Map(files.map((s, i) => [s, i]));
    const rows: Record<string, TableRow> = {};
    for (const [rel, e] of this.rows) {
      const i = index.get(e.seg);
      if (i === undefined) continue;
      rows[rel] = [e.hash, e.size, e.mtimeMs, i, e.pathsAt, e.pathsLen, e.symsAt, e.symsLen, e.sum];
    }
    return { segs: files.map((s) => s.name), rows };
  }

  /** Copies the live rows into a new segment when most bytes are replaced rows or there are many segments. */
  compactIfWasteful(): void {
    let live = 0;
    for (const e of this.rows.values()) live += e.symsLen + e.pathsLen;
    let held = 0;
    for (const s of this.segs) held += s.syms.size + s.paths.size;
    if (this.segs.length <= maxSegments && held <= wasteRatio * live + slackBytes) return;
    const old = this.segs;
    this.segs = [];
    this.own = null;
    for (const [rel, e] of [...this.rows]) {
      const paths = e.seg.paths.read(e.pathsAt, e.pathsLen);
      const syms = e.seg.syms.read(e.symsAt, e.symsLen);
      const moved = paths && syms && rowSum(syms) === e.sum ? this.append(rel, paths, syms) : null;
      if (moved) Object.assign(e, moved);
      else this.rows.delete(rel);
    }
    for (const s of old) {
      s.close();
      if (s.own && s.name !== "" && this.dir !== null) removeSegmentFiles(this.dir, s.name);
    }
    this.log.debug(`symbol table compacted: ${held} bytes in ${old.length} segments, ${live} live`);
  }

  /** Appends a row's texts to this process's segment (memory when the disk fails). */
  private append(
    rel: string,
    paths: Buffer,
    syms: Buffer,
  ): Pick<TableEntry, "seg" | "pathsAt" | "pathsLen" | "symsAt" | "symsLen" | "sum"> | null {
    for (let attempt = 0; attempt < 2; attempt++) {
      if (this.own === null) {
        this.own = newSegment(attempt === 0 ? this.dir : null);
        this.segs.push(this.own);
      }
      const seg = this.own;
      try {
        const at = seg.append(rel, paths, syms);
        return { seg, ...at, pathsLen: paths.length, symsLen: syms.length, sum: rowSum(syms) };
      } catch (e) {
        this.log.warn("could not append to the symbol table's segment; rows are kept in memory", e);
        this.own = null;
      }
    }
    return null;
  }
}

export function newKeyTable(dir: string | null, log: Logger): KeyTable {
  return new KeyTable(dir, log);
}

/** The table a snapshot describes; rows whose segment is missing or whose place is out of it are left out. */
export function loadKeyTable(dir: string, stored: StoredTable, log: Logger): KeyTable {
  const table = new KeyTable(dir, log);
  const segs = stored.segs.map((name) => (typeof name === "string" ? openSegment(dir, name) : null));
  const placed: [number, string][][] = segs.map(() => []);
  for (const [rel, row] of Object.entries(stored.rows)) {
    if (!Array.isArray(row) || row.length !== 9 || !plainRel(rel)) continue;
    const [hash, size, mtimeMs, i, pathsAt, pathsLen, symsAt, symsLen, sum] = row;
    const seg = typeof i === "number" ? segs[i] : undefined;
    if (!seg || typeof hash !== "string" || typeof sum !== "string") continue;
    if (typeof size !== "number" || typeof mtimeMs !== "number") continue;
    // Out of the segment's bytes: a torn or forged place is not read at all.
    if (seg.paths.read(pathsAt, 0) === null || pathsAt + pathsLen > seg.paths.size) continue;
    if (seg.syms.read(symsAt, 0) === null || symsAt + symsLen > seg.syms.size) continue;
    if (!Number.isSafeInteger(pathsLen) || !Number.isSafeInteger(symsLen) || pathsLen < 0 || symsLen < 0)
      continue;
    table.rows.set(rel, { hash, size, mtimeMs, fresh: false, seg, pathsAt, pathsLen, symsAt, symsLen, sum });
    placed[i as number]!.push([pathsAt, rel]);
  }
  for (const [i, seg] of segs.entries()) {
    if (!seg) continue;
    for (const [at, rel] of placed[i]!.sort((a, b) => a[0] - b[0])) {
      seg.starts.push(at);
      seg.owners.push(rel);
    }
    table.segs.push(seg);
  }
  return table;
}

/** A stored file name the walk could give: relative, normalized, no backslash or NUL. */
function plainRel(rel: string): boolean {
  return !/[\\\0]/.test(rel) && rel.split("/").every((p) => p !== "" && p !== "." && p !== "..");
}
