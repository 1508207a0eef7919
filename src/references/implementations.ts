/**
 * What a server answers for `textDocument/implementation` at a position, as symbols: each location
 * in a project file resolved to the symbol declared there (the deepest whose name is at it), once
 * per file and name path; locations in secret files by place only, outside the root dropped. Used
 * by find_implementations and by a change review (an interface's implementations on both sides).
 */
import type { Location, LocationLink, Position } from "vscode-languageserver-protocol";
import type { LspSession } from "../lsp/session.js";
import type { Project } from "../project/project.js";
import { type SymbolNode, symbolAt } from "../symbols/tree.js";
import { FileViews, normalizeLocations, type SecretSite, secretSite } from "./locations.js";

export interface Implementations {
  /** In the order the server answered. */
  found: Array<{ rel: string; node: SymbolNode }>;
  secret: SecretSite[];
}

/**
 * `rootsOf` gives a file's symbols where the caller knows them better than the disk does (the base
 * text shown as an overlay); `skip` leaves a symbol out (the interface itself).
 */
export async function implementationsAt(
  project: Project,
  session: LspSession,
  at: { uri: string; position: Position },
  signal: AbortSignal,
  options: {
    rootsOf?: (rel: string) => readonly SymbolNode[] | undefined;
    skip?: (rel: string, node: SymbolNode) => boolean;
  } = {},
): Promise<Implementations> {
  const raw = await session.request<Location[] | LocationLink[] | null>(
    "textDocument/implementation",
    { textDocument: { uri: at.uri }, position: at.position },
    { signal },
  );
  const views = new FileViews(project, signal);
  const out: Implementations = { found: [], secret: [] };
  const seen = new Set<string>();
  for (const loc of normalizeLocations(raw)) {
    const where = project.sandbox.fromUri(loc.uri);
    if (where.kind === "outside") continue;
    if (where.kind === "secret") {
      out.secret.push(secretSite(where.rel, loc));
      continue;
    }
    const rel = where.path.rel;
    const roots = options.rootsOf?.(rel) ?? (await views.get(where.path)).roots;
    const node = roots ? symbolAt(roots, loc.range.start) : null;
    if (!node || options.skip?.(rel, node)) continue;
    const key = `${rel}#${node.namePath}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.found.push({ rel, node });
  }
  return out;
}
