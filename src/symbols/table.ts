/**
 * The compact table of one index key: per file, the hash of the text its symbols were built from,
 * the size and mtime seen when it was hashed, and where its row is in a segment (symbols/segment.ts):
 * the symbols packed into arrays as JSON, and the names it declares as paths. Only the small
 * fields stay on the JS heap (~200 bytes a file); a row is read when a tree is built from it.
 * Before, every row was held as strings (~4 KB a file, 84 MB at 20k files); before that, a
 * SymbolNode tree, a DocumentSymbol tree and the text of every file (809 MB at 5k files). Trees
 * are built on demand and kept in a bounded cache (symbols/trees.ts).
 *
 * Fresh: the disk text was seen to hash to `hash` while the file watcher watched its directory,
 * and no change was reported since; such a row is trusted without touching the disk. Otherwise
 * the size and mtime decide (as git's index does), and failing them the text is read and hashed.
 */
import { createHash } from "node:crypto";
import type { DocumentSymbol } from "vscode-languageserver-protocol";
import type { DeclarationBounds } from "../languages/declaration.js";
import type { NamePathPattern } from "./name-path.js";
import type { Segment } from "./segment.js";

export interface TableEntry {
  hash: string;
  /** Size and mtime when hashed; mtime -1 when it was too recent to tell two writes apart. */
  size: number;
  mtimeMs: number;
  fresh: boolean;
  /** Where the row is: its paths text and its packed symbols in `seg`. */
  seg: Segment;
  pathsAt: number;
  pathsLen: number;
  symsAt: number;
  symsLen: number;
  /** Checksum of the packed symbols' bytes (`rowSum`): a torn or edited segment fails it. */
  sum: string;
}

/** A row's texts as written to a segment. */
export interface RowTexts {
  /**
   * Every symbol's path from the top, `/A/b` (with a Rust impl header in place of its type's name
   * on a second line), each line after a "\n" and ending in one: a pattern is looked up here
   * before any tree is built.
   */
  paths: Buffer;
  /** The normalized DocumentSymbol[] packed into arrays (`pack`), as JSON. */
  syms: Buffer;
}

/**
 * A write within this many ms of the hash may be followed by another in the same mtime tick:
 * such a row keeps no mtime, so its text is always hashed again (git's "racy" entries).
 */
const racyMs = 2000;

/** A row's texts: its paths and its packed symbols. */
export function rowTexts(symbols: readonly DocumentSymbol[]): RowTexts {
  const lines: string[] = [];
  const visit = (list: readonly DocumentSymbol[], plain: string, aliased: string) => {
    for (const s of list) {
      const container = (s as { container?: string }).container;
      // The step above this symbol may be named by the block that declared it (symbols/tree.ts).
      const above = container ? `${aliased.slice(0, aliased.lastIndexOf("/") + 1)}${container}` : aliased;
      const own = `${plain}/${s.name}`;
      const alt = `${above}/${s.name}`;
      lines.push(own);
      if (alt !== own) lines.push(alt);
      if (s.children) visit(s.children, own, alt);
    }
  };
  visit(symbols, "", "");
  return {
    paths: Buffer.from(`\n${lines.join("\n")}\n`, "utf8"),
    syms: Buffer.from(JSON.stringify(symbols.map(pack)), "utf8"),
  };
}

/** The size and mtime a row keeps for a stat (no mtime for a racy one). */
export function statFields(stat: { size: number; mtimeMs: number } | null): {
  size: number;
  mtimeMs: number;
} {
  const racy = stat === null || Date.now() - stat.mtimeMs < racyMs;
  return { size: stat?.size ?? -1, mtimeMs: racy ? -1 : (stat?.mtimeMs ?? -1) };
}

export function rowSum(syms: Buffer): string {
  return createHash("sha256").update(syms).digest("hex").slice(0, 32);
}

/**
 * What to look for in the paths of a file that may hold a match of the pattern: its names in order
 * ending a path (every path from the top when absolute). Indexes (`name[1]`) are left to the tree;
 * with `substring` only the last name is looked for. Never missing for a file that has a match.
 */
export function pathNeedle(pattern: NamePathPattern, substring: boolean): string {
  const names = pattern.segments.map((s) => s.name);
  if (substring) return names.at(-1)!;
  const tail = `/${names.join("/")}\n`;
  return pattern.absolute ? `\n${tail}` : tail;
}

/** Whether a row's paths text holds the pattern's needle (`pathNeedle`). */
export function pathsMayMatch(paths: string, pattern: NamePathPattern, substring: boolean): boolean {
  return paths.includes(pathNeedle(pattern, substring));
}

/** The row's symbols as the adapter gave them, or null when its bytes are gone or fail their checksum. */
export function readSymbols(entry: TableEntry): DocumentSymbol[] | null {
  const bytes = entry.seg.syms.read(entry.symsAt, entry.symsLen);
  if (bytes === null || rowSum(bytes) !== entry.sum) return null;
  try {
    const list = JSON.parse(bytes.toString("utf8")) as unknown;
    if (!Array.isArray(list)) return null;
    return list.map((a) => unpack(a as unknown[]));
  } catch {
    return null;
  }
}

/**
 * A DocumentSymbol as an array: name, kind, the 8 numbers of its range and selection range, its
 * detail (0: none), its children (0: none), the 4 numbers of its declaration bounds (0: none),
 * then anything else the adapter added (parts, container, anonymous, tags). A generated 58-symbol
 * module's 16.8 KB of object JSON became about 3.5 KB.
 */
export function pack(s: DocumentSymbol): unknown[] {
  const { name, kind, range: r, selectionRange: q, detail, children, ...rest } = s;
  const { declaration, ...other } = rest as { declaration?: DeclarationBounds };
  const out: unknown[] = [
    name,
    kind,
    r.start.line,
    r.start.character,
    r.end.line,
    r.end.character,
    q.start.line,
    q.start.character,
    q.end.line,
    q.end.character,
    detail ?? 0,
    children && children.length > 0 ? children.map(pack) : 0,
    declaration
      ? [declaration.head.line, declaration.head.character, declaration.body.line, declaration.body.character]
      : 0,
  ];
  if (Object.keys(other).length > 0) out.push(other);
  return out;
}

/** Throws on a row that is not what `pack` writes (a forged segment must not make odd symbols). */
export function unpack(a: unknown[]): DocumentSymbol {
  if (!Array.isArray(a) || typeof a[0] !== "string" || !a.slice(1, 10).every((x) => typeof x === "number"))
    throw new Error("not a packed symbol");
  const n = a as unknown as [string, number, number, number, number, number, number, number, number, number];
  const detail = a[10];
  const children = a[11];
  const d = a[12];
  const extra = a[13];
  const rest = (extra !== null && typeof extra === "object" && !Array.isArray(extra) ? extra : {}) as object;
  const declaration: DeclarationBounds | undefined = Array.isArray(d)
    ? { head: { line: d[0], character: d[1] }, body: { line: d[2], character: d[3] } }
    : undefined;
  return {
    ...rest,
    name: n[0],
    kind: n[1] as DocumentSymbol["kind"],
    range: { start: { line: n[2], character: n[3] }, end: { line: n[4], character: n[5] } },
    selectionRange: { start: { line: n[6], character: n[7] }, end: { line: n[8], character: n[9] } },
    ...(typeof detail === "string" ? { detail } : {}),
    ...(declaration ? { declaration } : {}),
    children: Array.isArray(children) ? (children as unknown[][]).map(unpack) : [],
  };
}

export function sameStat(entry: TableEntry, stat: { size: number; mtimeMs: number }): boolean {
  return entry.mtimeMs !== -1 && entry.size === stat.size && entry.mtimeMs === stat.mtimeMs;
}
