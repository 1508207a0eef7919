/**
 * The calls tools make on the symbol service (`project.symbols`): a file's symbols with the
 * document open in its server (for tools that then send a position request), a name path resolved
 * to one symbol, and symbols already known for a text. Tools that only read symbols use
 * `project.symbols.file` / `scan`, which need no server when the index holds the file.
 */
import type { CheckedPath, Sandbox } from "../security/sandbox.js";
import { resolveIn } from "./resolve.js";
import type { OpenSymbolFile, SymbolService } from "./service.js";
import type { SymbolNode } from "./tree.js";

export { matchSymbols } from "./resolve.js";

export type FileSymbols = OpenSymbolFile;

/** What these calls need of the project: its symbol service and its sandbox. */
export interface SymbolsOwner {
  readonly symbols: SymbolService;
  readonly sandbox: Sandbox;
}

/**
 * A file's symbols, opened in its server. `refreshOpen` re-sends open documents changed on disk;
 * the first lookup of a tool call does it, the many lookups that follow for one answer skip it.
 */
export async function fileSymbols(
  project: SymbolsOwner,
  path: CheckedPath,
  signal?: AbortSignal,
  refreshOpen = true,
): Promise<OpenSymbolFile> {
  const file = await project.symbols.file(path, signal);
  return project.symbols.open(file, signal, refreshOpen);
}

/** Symbols already known for exactly this text of a file, without asking any server. */
export function cachedSymbols(project: SymbolsOwner, abs: string, text: string): SymbolNode[] | null {
  return project.symbols.cached(abs, text);
}

/**
 * Resolves a name path in one file to exactly one symbol (symbols/resolve.ts), opened in its
 * server for the position request that follows. A name that is not there fails before the server
 * is waited for: the index answers it.
 */
export async function resolveSymbol(
  project: SymbolsOwner,
  relativePath: string,
  namePath: string,
  signal?: AbortSignal,
  overloadsAsOne = false,
): Promise<{ file: OpenSymbolFile; node: SymbolNode }> {
  const path = project.sandbox.resolve(relativePath, { mustExist: true, kind: "file" });
  const found = await project.symbols.file(path, signal);
  const node = resolveIn(found.roots, path.rel, namePath, overloadsAsOne);
  const file = await project.symbols.open(found, signal);
  if (file.roots === found.roots) return { file, node };
  return { file, node: resolveIn(file.roots, path.rel, namePath, overloadsAsOne) };
}
