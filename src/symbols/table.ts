/**
 * The compact in-memory table of one index key: per file, the hash of the text its symbols were
 * built from, the size and mtime seen when it was hashed, the symbols as their JSON text, and the
 * names it declares. One copy of every file's symbols, as strings: on the 5k-file bench project the
 * old caches (a SymbolNode tree and a DocumentSymbol tree per file, plus every file's text) drove
 * scalpel to 809 MB. Trees are built from it on demand and kept in a bounded cache (symbols/trees.ts).
 *
 * Fresh: the disk text was seen to hash to `hash` while the file watcher watched its directory,
 * and no change was reported since; such a row is trusted without touching the disk. Otherwise
 * the size and mtime decide (as git's index does), and failing them the text is read and hashed.
 */
import type { DocumentSymbol } from "vscode-languageserver-protocol";
import type { DeclarationBounds } from "../languages/declaration.js";
import type { TableRow } from "./index-store.js";
import type { NamePathPattern } from "./name-path.js";

export interface TableEntry {
  hash: string;
  /** Size and mtime when hashed; mtime -1 when it was too recent to tell two writes apart. */
  size: number;
  mtimeMs: number;
  /** The normalized DocumentSymbol[] packed into arrays (`pack`), as JSON. */
  symbols: string;
  /**
   * Every symbol's path from the top, `/A/b` (with a Rust impl header in place of its type's name
   * on a second line), each line after a "\n" and ending in one: a pattern is looked up here
   * before any tree is built.
   */
  paths: string;
  fresh: boolean;
}

/**
 * A write within this many ms of the hash may be followed by another in the same mtime tick:
 * such a row keeps no mtime, so its text is always hashed again (git's "racy" entries).
 */
const racyMs = 2000;

export function entryOf(
  hash: string,
  stat: { size: number; mtimeMs: number } | null,
  symbols: readonly DocumentSymbol[],
  fresh: boolean,
): TableEntry {
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
  const racy = stat === null || Date.now() - stat.mtimeMs < racyMs;
  return {
    hash,
    size: stat?.size ?? -1,
    mtimeMs: racy ? -1 : (stat?.mtimeMs ?? -1),
    symbols: JSON.stringify(symbols.map(pack)),
    paths: `\n${lines.join("\n")}\n`,
    fresh,
  };
}

/**
 * Whether a symbol of the file may match the pattern: its names in order end a path (every path
 * from the top when absolute). Indexes (`name[1]`) are left to the tree; with `substring` only the
 * last name is looked for. Never false for a file that has a match.
 */
export function mayMatch(entry: TableEntry, pattern: NamePathPattern, substring: boolean): boolean {
  const names = pattern.segments.map((s) => s.name);
  if (substring) return entry.paths.includes(names.at(-1)!);
  const tail = `/${names.join("/")}\n`;
  return entry.paths.includes(pattern.absolute ? `\n${tail}` : tail);
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

export function unpack(a: unknown[]): DocumentSymbol {
  const n = a as unknown as [string, number, number, number, number, number, number, number, number, number];
  const detail = a[10];
  const children = a[11];
  const d = a[12];
  const rest = (a[13] ?? {}) as object;
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

/** The entry's symbols as the adapter gave them. */
export function symbolsOf(entry: TableEntry): DocumentSymbol[] {
  return (JSON.parse(entry.symbols) as unknown[][]).map(unpack);
}

export function sameStat(entry: TableEntry, stat: { size: number; mtimeMs: number }): boolean {
  return entry.mtimeMs !== -1 && entry.size === stat.size && entry.mtimeMs === stat.mtimeMs;
}

export function toRow(e: TableEntry): TableRow {
  return [e.hash, e.size, e.mtimeMs, e.symbols, e.paths];
}

export function fromRow(row: TableRow): TableEntry | null {
  const [hash, size, mtimeMs, symbols, paths] = row;
  if (typeof hash !== "string" || typeof symbols !== "string" || typeof paths !== "string") return null;
  return { hash, size: Number(size), mtimeMs: Number(mtimeMs), symbols, paths, fresh: false };
}
