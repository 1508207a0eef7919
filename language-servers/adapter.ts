/**
 * What scalpel knows about one language server: which files it serves, how to launch it, and its
 * quirks. Everything language-specific lives behind this interface; the rest of the code iterates
 * the adapter list in `language-servers/index.ts`.
 */
import type { DocumentSymbol } from "vscode-languageserver-protocol";
import type { ServerSpec } from "../src/lsp/types.js";
import type { DeclarationSyntax } from "../src/symbols/declaration.js";

export interface ServerProbe {
  found: boolean;
  command?: string;
  version?: string;
  /** How to install it when missing. */
  hint?: string;
}

export interface LanguageAdapter {
  /** Language id used in tool results and config (`typescript`, `rust`, `dart`). */
  id: string;
  displayName: string;
  /** File extensions with the dot, lower case. */
  extensions: string[];
  /** Directory names never searched or indexed for this language. */
  ignoredDirs: string[];
  /** The launch spec for a project root, or the reason it cannot be launched. */
  spec(root: string): ServerSpec | { missing: string };
  /** For `scalpel doctor`; `root` is the project, for servers resolved relative to it. */
  probe(root?: string): Promise<ServerProbe>;
  /**
   * Server-specific clean-up of a document symbol tree before name paths are built (drop
   * anonymous callbacks, normalise qualified names, flatten impl blocks, widen ranges to the whole
   * declaration). `text` is the document the symbols describe. Must return symbols in source order.
   */
  normalizeSymbols?(symbols: DocumentSymbol[], text: string): DocumentSymbol[];
  /**
   * How the language writes what stands before a declaration (doc comments, comments,
   * attributes / decorators), what its strings look like, and its usual indentation unit. The one
   * declaration model (src/symbols/declaration.ts) uses it to split every symbol into head and body
   * whatever range the server reports; `index.ts` applies it to every adapter. Default: the
   * generic syntax (`//`, `#`, `/* *\/` comments, `#[…]` and `@name(…)` attributes).
   */
  declarations?: DeclarationSyntax;
}
