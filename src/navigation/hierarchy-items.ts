/**
 * Call and type hierarchy items as the contract shows them: the project-relative file, the
 * symbol's name path (from the file's own symbol tree, so it is the name path other tools take)
 * and 1-based lines. Items in secret files show their place only; items outside the project
 * (a standard library) their name only, never a host path.
 */
import type { Range } from "vscode-languageserver-protocol";
import { z } from "zod";
import { AppError, isAppError } from "../core/errors.js";
import { plural } from "../core/words.js";
import type { LspSession } from "../lsp/session.js";
import type { Project } from "../project/project.js";
import type { FileViews } from "../references/locations.js";
import { serverName } from "../servers/support.js";
import { type SymbolNode, symbolAt } from "../symbols/tree.js";

/** What call and type hierarchy items have in common. */
export interface HierarchyItem {
  name: string;
  kind: number;
  uri: string;
  range: Range;
  selectionRange: Range;
}

/**
 * The server's items for a hierarchy rooted at a symbol's name. A symbol the server cannot root
 * one at is the caller's mistake, not a server failure: gopls v0.23.0 answers an error ("Book is
 * not a function", "not a type name", measured), other servers may answer nothing; either way the
 * answer is invalid_argument saying what to give, never an empty hierarchy that reads as "no callers".
 */
export async function prepareItems<I extends HierarchyItem>(
  at: { session: LspSession; adapterId: string; uri: string; node: SymbolNode; signal: AbortSignal },
  method: "textDocument/prepareCallHierarchy" | "textDocument/prepareTypeHierarchy",
  wanted: string,
): Promise<I[]> {
  let items: I[] | null;
  let refused = "";
  try {
    items = await at.session.request<I[] | null>(
      method,
      { textDocument: { uri: at.uri }, position: at.node.selectionRange.start },
      { signal: at.signal },
    );
  } catch (e) {
    // A server's error answer (it carries the LSP code); timeouts, crashes and aborts pass on.
    if (!isAppError(e) || e.code !== "internal" || e.details?.lspCode === undefined) throw e;
    items = null;
    refused = `: "${e.message.slice(e.message.indexOf(`${method}: `) + method.length + 2)}"`;
  }
  if (items && items.length > 0) return items;
  const hierarchy = method === "textDocument/prepareCallHierarchy" ? "call" : "type";
  throw new AppError(
    "invalid_argument",
    `${serverName(at.session, at.adapterId)} has no ${hierarchy} hierarchy for ${at.node.namePath} (${at.node.kind})${refused}. Give the name path of ${wanted}.`,
  );
}

export const placeSchema = {
  relative_path: z.string().optional().describe("absent for a symbol outside the project (a library)"),
  name_path: z
    .string()
    .nullable()
    .describe(
      "the symbol's name path in its file (its bare name outside the project); null: top-level code of a file, or a secret file",
    ),
  line: z.number().int().optional().describe("1-based line of the symbol's name; absent outside the project"),
  secret: z.literal(true).optional().describe("in a secret file: only its place is shown"),
  outside: z.literal(true).optional().describe("outside the project: only its name is shown"),
};

export interface Place {
  relative_path?: string;
  name_path: string | null;
  line?: number;
  secret?: true;
  outside?: true;
}

/** LSP SymbolKind.File and Module: tsserver names a file's top-level code after the file. */
const fileKinds = new Set([1, 2]);

export async function placeOf(project: Project, views: FileViews, item: HierarchyItem): Promise<Place> {
  const where = project.sandbox.fromUri(item.uri);
  if (where.kind === "outside") return { name_path: item.name, outside: true };
  const line = item.selectionRange.start.line + 1;
  if (where.kind === "secret") return { relative_path: where.rel, name_path: null, line, secret: true };
  if (fileKinds.has(item.kind) && item.range.start.line === 0 && item.range.start.character === 0) {
    return { relative_path: where.path.rel, name_path: null, line };
  }
  const view = await views.get(where.path);
  const node = view.roots ? symbolAt(view.roots, item.selectionRange.start) : null;
  return { relative_path: where.path.rel, name_path: node?.namePath ?? item.name, line };
}

/** `src/a.ts Money/add:9`, `src/secret.ts:4 (secret)`, `round (outside the project)`. */
export function placeLabel(p: Place): string {
  if (p.outside) return `${p.name_path} (outside the project)`;
  if (p.secret) return `${p.relative_path}:${p.line} (secret file)`;
  return `${p.relative_path} ${p.name_path ?? "(top-level code)"}:${p.line}`;
}

/** One answer reached by a walk: where it is, its level, and the symbol of the level above it. */
export interface Reached<A> {
  place: Place;
  depth: number;
  via?: string;
  answer: A;
}

export interface LevelWalk<I extends HierarchyItem, A> {
  roots: readonly I[];
  /** Levels asked for, and the most the tool allows (named in the cut-off note). */
  depth: number;
  maxDepth: number;
  maxItems: number;
  direction: string;
  /** What an item is, for the cut-off note: "symbol", "type". */
  noun: string;
  /** The note when `maxItems` answers are reached at `depth`. */
  limitNote: (depth: number) => string;
  ask: (item: I) => Promise<readonly A[] | null>;
  /** The item an answer leads to (an incoming call's caller, a subtype). */
  next: (answer: A) => I;
}

/**
 * Call and type hierarchies, level by level up to `depth`: each item is expanded once (recursion
 * ends instead of repeating), secret and outside items are listed but not followed, and where the
 * walk stops early `stopped` says so and how to go further.
 */
export async function walkLevels<I extends HierarchyItem, A>(
  project: Project,
  views: FileViews,
  w: LevelWalk<I, A>,
  stopped: string[],
): Promise<Reached<A>[]> {
  const out: Reached<A>[] = [];
  const key = (item: HierarchyItem) =>
    `${item.uri}#${item.selectionRange.start.line}:${item.selectionRange.start.character}`;
  const seen = new Set(w.roots.map(key));
  let level: Array<{ item: I; via: string | undefined }> = w.roots.map((item) => ({ item, via: undefined }));
  for (let depth = 1; depth <= w.depth && level.length > 0; depth++) {
    const nextLevel: typeof level = [];
    for (const { item, via } of level) {
      for (const answer of (await w.ask(item)) ?? []) {
        if (out.length >= w.maxItems) {
          stopped.push(w.limitNote(depth));
          return out;
        }
        const other = w.next(answer);
        const place = await placeOf(project, views, other);
        out.push({ place, depth, ...(via !== undefined ? { via } : {}), answer });
        if (!seen.has(key(other)) && !place.secret && !place.outside) {
          seen.add(key(other));
          nextLevel.push({ item: other, via: place.name_path ?? place.relative_path });
        }
      }
    }
    if (depth === w.depth && nextLevel.length > 0) {
      const more = depth < w.maxDepth ? `; raise depth (at most ${w.maxDepth})` : "";
      stopped.push(
        `${w.direction}: depth ${depth} reached; ${plural(nextLevel.length, w.noun)} at depth ${depth} not followed${more}`,
      );
    }
    level = nextLevel;
  }
  return out;
}
