/**
 * A file's symbols as they were in the base text, asked of the same language server that describes
 * the work tree (so both sides are cut the same way), with the base text shown to it as an unsaved
 * buffer of the file (`LspSession.withOverlay`): nothing on disk changes. While the overlay is held,
 * `during` can ask position requests about the base text (the users of a removed symbol); other
 * calls wait for the overlay to be lifted.
 */
import type { DocumentSymbol, SymbolInformation } from "vscode-languageserver-protocol";
import type { LanguageAdapter } from "../languages/adapter.js";
import type { LspSession } from "../lsp/session.js";
import { pathToUri } from "../lsp/uri.js";
import type { Project } from "../project/project.js";
import type { CheckedPath } from "../security/sandbox.js";
import { buildTree, hierarchyFromFlat, isDocumentSymbols, type SymbolNode } from "../symbols/tree.js";

export interface BaseView {
  roots: SymbolNode[];
  session: LspSession;
  adapter: LanguageAdapter;
  uri: string;
}

export async function withBaseSymbols<T>(
  project: Project,
  path: CheckedPath,
  baseText: string,
  during: (view: BaseView) => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  const { session, adapter } = project.pool.sessionFor(path.abs);
  await session.whenReady(signal);
  const uri = pathToUri(path.abs);
  return session.withOverlay(path.abs, baseText, async () => {
    const raw = await session.request<(DocumentSymbol | SymbolInformation)[] | null>(
      "textDocument/documentSymbol",
      { textDocument: { uri } },
      signal ? { signal } : {},
    );
    const list = raw ?? [];
    const tree = isDocumentSymbols(list) ? list : hierarchyFromFlat(list as SymbolInformation[]);
    const roots = buildTree(adapter.normalizeSymbols ? adapter.normalizeSymbols(tree, baseText) : tree);
    return during({ roots, session, adapter, uri });
  });
}
