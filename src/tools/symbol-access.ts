/**
 * How tools reach symbols: pick the server for a file, bring it up to date with the disk, ask for
 * its document symbols (cached per document version), and resolve name paths.
 */

import type { DocumentSymbol, SymbolInformation } from "vscode-languageserver-protocol";
import type { LanguageAdapter } from "../../language-servers/adapter.js";
import { AppError } from "../errors.js";
import type { LspSession } from "../lsp/session.js";
import type { OpenDocument } from "../lsp/types.js";
import type { Project } from "../project/project.js";
import type { CheckedPath } from "../security/sandbox.js";
import { matchesNamePath, parseNamePath } from "../symbols/name-path.js";
import { buildTree, hierarchyFromFlat, isDocumentSymbols, type SymbolNode, walk } from "../symbols/tree.js";

export interface FileSymbols {
  path: CheckedPath;
  doc: OpenDocument;
  roots: SymbolNode[];
  session: LspSession;
  adapter: LanguageAdapter;
}

/**
 * Document symbols depend only on a file's text, so they are cached by text, not by document
 * version: versions restart at 1 when a file is closed and opened again, and may then name other text.
 */
interface CacheEntry {
  text: string;
  roots: SymbolNode[];
}

const caches = new WeakMap<Project, Map<string, CacheEntry>>();

function cacheOf(project: Project): Map<string, CacheEntry> {
  let c = caches.get(project);
  if (!c) {
    c = new Map();
    caches.set(project, c);
  }
  return c;
}

/**
 * `refreshOpen` re-sends open documents changed on disk; the first lookup of a tool call does it,
 * the many lookups that follow for one answer (reference sites) skip it.
 */
export async function fileSymbols(
  project: Project,
  path: CheckedPath,
  signal?: AbortSignal,
  refreshOpen = true,
): Promise<FileSymbols> {
  const { session, adapter } = project.pool.sessionFor(path.abs);
  await session.whenReady(signal);
  if (refreshOpen) await session.refreshOpenDocuments();
  const doc = await session.sync(path.abs);
  const cache = cacheOf(project);
  const hit = cache.get(path.abs);
  if (hit && hit.text === doc.text) return { path, doc, roots: hit.roots, session, adapter };
  // The persistent index (symbols/index-store.ts) answers for text it has seen; else the server.
  const symbols = await project.symbolIndex.symbols(session, adapter.id, path.rel, doc.text, async () => {
    const raw = await session.request<(DocumentSymbol | SymbolInformation)[] | null>(
      "textDocument/documentSymbol",
      { textDocument: { uri: doc.uri } },
      signal ? { signal } : {},
    );
    const list = raw ?? [];
    const hierarchical = isDocumentSymbols(list) ? list : hierarchyFromFlat(list as SymbolInformation[]);
    return adapter.normalizeSymbols ? adapter.normalizeSymbols(hierarchical, doc.text) : hierarchical;
  });
  const roots = buildTree(symbols);
  cache.set(path.abs, { text: doc.text, roots });
  return { path, doc, roots, session, adapter };
}

/** Symbols already known for exactly this text of a file, without asking any server. */
export function cachedSymbols(project: Project, abs: string, text: string): SymbolNode[] | null {
  const hit = cacheOf(project).get(abs);
  return hit && hit.text === text ? hit.roots : null;
}

export function matchSymbols(roots: readonly SymbolNode[], pattern: string, substring = false): SymbolNode[] {
  const parsed = parseNamePath(pattern);
  return [...walk(roots)].filter((n) => matchesNamePath(parsed, n.path, substring));
}

/**
 * Resolves a name path in one file to exactly one symbol, or explains what to do instead.
 * `overloadsAsOne`: a name that matches only the overloads of one function resolves to it — for
 * tools that ask the compiler about the symbol (references, rename, implementations), not for
 * those that edit one declaration's text.
 */
export async function resolveSymbol(
  project: Project,
  relativePath: string,
  namePath: string,
  signal?: AbortSignal,
  overloadsAsOne = false,
): Promise<{ file: FileSymbols; node: SymbolNode }> {
  const path = project.sandbox.resolve(relativePath, { mustExist: true, kind: "file" });
  const file = await fileSymbols(project, path, signal);
  const found = matchSymbols(file.roots, namePath);
  if (found.length === 1) return { file, node: found[0]! };
  const overloaded = overloadsAsOne ? oneOverloadedFunction(file.roots, found) : null;
  if (overloaded) return { file, node: overloaded };
  if (found.length === 0) {
    const last = parseNamePath(namePath).segments.at(-1)?.name.toLowerCase() ?? "";
    const all = [...walk(file.roots)].filter((n) => !n.local);
    const close = all
      .filter((n) => {
        const name = n.name.toLowerCase();
        return name.includes(last) || last.includes(name) || editDistance(name, last) <= 2;
      })
      .slice(0, 8)
      .map((n) => n.namePath);
    const hint =
      close.length > 0
        ? ` Close matches: ${close.join(", ")}.`
        : ` Top-level symbols there: ${file.roots
            .slice(0, 12)
            .map((n) => n.namePath)
            .join(", ")}.`;
    throw new AppError(
      "symbol_not_found",
      `Symbol '${namePath}' not found in ${path.rel}.${hint} Use get_symbols_overview on the file to see its name paths.`,
    );
  }
  const listed = found
    .slice(0, 10)
    .map((n) => `${n.namePath} (${n.kind}, line ${n.range.start.line + 1})`)
    .join("; ");
  throw new AppError(
    "ambiguous_symbol",
    `'${namePath}' matches ${found.length} symbols in ${path.rel}: ${listed}. Repeat the call with one of these name paths (an index such as 'name[0]' picks among overloads).`,
    { candidates: found.map((n) => n.namePath) },
  );
}

const overloadKinds = new Set(["Function", "Method", "Constructor"]);

/**
 * The symbol that overload signatures declare together, or null when `found` is not such a set.
 * To the compiler the signatures and the implementation of a function are one symbol (rxjs
 * `innerFrom`, `executeSchedule`: references and rename answer the same from any of them), so a
 * bare name that matches only them is not ambiguous. They must be consecutive siblings of one
 * parent with one name, all functions or all methods. The implementation is picked: the one with
 * a body spans the most lines (in a declaration file, where none has, the first signature).
 */
function oneOverloadedFunction(
  roots: readonly SymbolNode[],
  found: readonly SymbolNode[],
): SymbolNode | null {
  const first = found[0];
  if (!first || found.length < 2 || !overloadKinds.has(first.kind)) return null;
  if (found.some((n) => n.name !== first.name || n.kind !== first.kind || n.parent !== first.parent))
    return null;
  const siblings = first.parent?.children ?? roots;
  const at = found.map((n) => siblings.indexOf(n)).sort((a, b) => a - b);
  if (at.some((i, k) => i < 0 || (k > 0 && i !== at[k - 1]! + 1))) return null;
  const span = (n: SymbolNode) => n.range.end.line - n.range.start.line;
  return at.map((i) => siblings[i]!).reduce((best, n) => (span(n) > span(best) ? n : best));
}

/** Levenshtein distance, for "did you mean" suggestions on short identifiers. */
function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row.push(Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    }
    prev = row;
  }
  return prev[b.length]!;
}
