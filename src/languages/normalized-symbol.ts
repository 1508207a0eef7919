/**
 * The symbols an adapter hands to the symbol service after its clean-up: LSP document symbols with
 * the extra facts the generic code cannot know (parts, containers, declaration bounds).
 */
import type { DocumentSymbol, Range } from "vscode-languageserver-protocol";
import type { DeclarationBounds } from "./declaration.js";

/**
 * Another block of source that declares part of a symbol (a Rust `impl` block of a struct). Its
 * members are the symbol's children, so children may lie outside the symbol's own `range`.
 */
export interface SymbolPart {
  range: Range;
  selectionRange: Range;
  detail?: string;
}

/**
 * What an adapter's `normalizeSymbols` may return: document symbols, some with parts, some members
 * with the header of the block that declared them (`container`), which a name-path pattern may use
 * in place of the parent's name: `impl Greeter for Console/greet` as well as `Console/greet`.
 */
export type NormalizedSymbol = DocumentSymbol & {
  parts?: SymbolPart[];
  container?: string;
  declaration?: DeclarationBounds;
  /**
   * A function without a name of its own, passed as a value (`describe("…", () => { … })`,
   * `xs.map(x => …)`). It is no symbol, and neither is anything it declares: its locals,
   * parameters and members. A reference inside it belongs to the nearest named ancestor (or to
   * none at the top level), never to one of its locals.
   */
  anonymous?: boolean;
};
