/** What the symbol service answers: a file's symbols, opened or not, and a directory scan's hits. */
import type { LanguageAdapter } from "../languages/adapter.js";
import type { LspSession } from "../lsp/session.js";
import type { OpenDocument } from "../lsp/types.js";
import type { CheckedPath } from "../security/sandbox.js";
import type { SymbolNode } from "./tree.js";

/** A file's symbols for exactly `text`, as it is on disk; the server may never have seen it. */
export interface SymbolFile {
  path: CheckedPath;
  text: string;
  roots: SymbolNode[];
  adapter: LanguageAdapter;
}

/** A file's symbols with the document open in its server: positions may be sent about it. */
export interface OpenSymbolFile extends SymbolFile {
  doc: OpenDocument;
  session: LspSession;
}

/** How far the index is, for answers that are not complete yet. */
export interface IndexProgress {
  indexed: number;
  total: number;
}

/** One file of a directory scan that may declare the name looked for. */
export interface ScanHit {
  path: CheckedPath;
  roots: SymbolNode[];
}

export interface ScanResult {
  hits: ScanHit[];
  /** Why files were left out (their server is unavailable and the index does not hold them). */
  problems: Set<string>;
  /** Files left out for that reason. */
  missing: number;
  /** Files whose current text the table held (answered without reading them). */
  current: number;
  /** Files scanned. */
  total: number;
}
