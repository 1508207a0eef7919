/**
 * The users of a changed symbol that the change did not touch: its reference sites (references/
 * sites.ts, as find_referencing_symbols finds them) minus those on lines the change added or
 * rewrote. A removed symbol's users are asked about the base text of its file (an overlay): the
 * sites in that file are then at base lines, and only those on lines the change kept are users
 * still, reported at their line today with that line's code and containing symbol.
 */
import type { LspSession } from "../lsp/session.js";
import type { Project } from "../project/project.js";
import { collectReferences, type Reference, siteLine } from "../references/sites.js";
import { containingSymbol, type SymbolNode } from "../symbols/tree.js";
import type { LineMap } from "./line-map.js";

export interface UsersQuery {
  project: Project;
  session: LspSession;
  adapter: Parameters<typeof collectReferences>[0]["adapter"];
  uri: string;
  abs: string;
  rel: string;
  node: SymbolNode;
  /** Changed files' line maps, by path. */
  maps: ReadonlyMap<string, LineMap>;
  /** The symbol is asked about in its file's base text: its own file's sites are at base lines. */
  baseSide?: { afterLines: readonly string[]; afterRoots: readonly SymbolNode[] };
  signal?: AbortSignal;
}

export interface Users {
  references: Reference[];
  incompleteReason?: string;
}

export async function usersOutsideChange(q: UsersQuery): Promise<Users> {
  const answer = await collectReferences({
    project: q.project,
    session: q.session,
    adapter: q.adapter,
    uri: q.uri,
    abs: q.abs,
    node: q.node,
    contextLines: 0,
    ...(q.signal ? { signal: q.signal } : {}),
  });
  const references: Reference[] = [];
  for (const r of answer.references) {
    const map = q.maps.get(r.relative_path);
    if (r.relative_path === q.rel && q.baseSide) {
      const moved = map?.toNew(r.line - 1) ?? null;
      if (moved === null) continue;
      references.push(replaced(r, moved, q.baseSide));
      continue;
    }
    if (map?.changed.has(r.line - 1)) continue;
    references.push(r);
  }
  return {
    references: references.sort((a, b) => a.relative_path.localeCompare(b.relative_path) || a.line - b.line),
    ...(answer.incompleteReason ? { incompleteReason: answer.incompleteReason } : {}),
  };
}

/** A base-text site of the symbol's own file, told as it is today (line, code, container). */
function replaced(r: Reference, line: number, side: NonNullable<UsersQuery["baseSide"]>): Reference {
  const pos = { line, character: r.column - 1 };
  const container = containingSymbol(side.afterRoots, pos);
  const { import: _import, snippet: _snippet, ...rest } = r;
  return {
    ...rest,
    line: line + 1,
    containing_symbol: container ? { name_path: container.namePath, kind: container.kind } : null,
    snippet: siteLine(side.afterLines[line] ?? "", r.column - 1),
  };
}
