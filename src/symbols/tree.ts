/**
 * A file's symbols as a tree with parents and name paths. Built from the server's hierarchical
 * `DocumentSymbol[]` (after the adapter's clean-up), or from flat `SymbolInformation[]` by range
 * containment for servers that only give that.
 */
import type { DocumentSymbol, Range, SymbolInformation } from "vscode-languageserver-protocol";
import type { DeclarationBounds } from "./declaration.js";
import { callableKinds, containerKinds, kindName } from "./kinds.js";
import { formatNamePath, type PathStep } from "./name-path.js";

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

export interface SymbolNode {
  name: string;
  kind: string;
  detail?: string;
  /** Whole declaration, 0-based LSP range. */
  range: Range;
  selectionRange: Range;
  /** Other blocks declaring this symbol (see SymbolPart). */
  parts?: SymbolPart[];
  /**
   * Where the declaration's docs/attributes and its body start (symbols/declaration.ts); absent
   * when the symbols were not marked, and then both are `range.start`.
   */
  declaration?: DeclarationBounds;
  parent: SymbolNode | null;
  children: SymbolNode[];
  path: PathStep[];
  namePath: string;
  /** A variable or constant declared inside a function body. */
  local: boolean;
}

export function isDocumentSymbols(
  list: readonly (DocumentSymbol | SymbolInformation)[],
): list is DocumentSymbol[] {
  return list.length === 0 || "selectionRange" in list[0]!;
}

function before(a: Range["start"], b: Range["start"]): number {
  return a.line - b.line || a.character - b.character;
}

function contains(outer: Range, inner: Range): boolean {
  return before(outer.start, inner.start) <= 0 && before(inner.end, outer.end) <= 0;
}

/** Rebuilds a hierarchy from flat symbol information using range containment. */
export function hierarchyFromFlat(list: readonly SymbolInformation[]): DocumentSymbol[] {
  const sorted = [...list].sort(
    (a, b) =>
      before(a.location.range.start, b.location.range.start) ||
      before(b.location.range.end, a.location.range.end),
  );
  const roots: DocumentSymbol[] = [];
  const stack: DocumentSymbol[] = [];
  for (const info of sorted) {
    const sym: DocumentSymbol = {
      name: info.name,
      kind: info.kind,
      range: info.location.range,
      selectionRange: info.location.range,
      children: [],
    };
    while (stack.length > 0 && !contains(stack[stack.length - 1]!.range, sym.range)) stack.pop();
    const parent = stack[stack.length - 1];
    if (parent) parent.children!.push(sym);
    else roots.push(sym);
    stack.push(sym);
  }
  return roots;
}

export function buildTree(symbols: readonly DocumentSymbol[]): SymbolNode[] {
  const build = (list: readonly DocumentSymbol[], parent: SymbolNode | null): SymbolNode[] => {
    // Dropped here, with their whole subtree, for every language: re-parenting what an anonymous
    // callback declares made a test callback's `const result` a top-level symbol and the
    // containing symbol of the calls beside it.
    const ordered = list
      .filter((s) => !(s as NormalizedSymbol).anonymous)
      .sort((a, b) => before(a.range.start, b.range.start));
    const counts = new Map<string, number>();
    for (const s of ordered) counts.set(s.name, (counts.get(s.name) ?? 0) + 1);
    const seen = new Map<string, number>();
    return ordered.map((s) => {
      const index = seen.get(s.name) ?? 0;
      seen.set(s.name, index + 1);
      const kind = kindName(s.kind);
      const container = (s as NormalizedSymbol).container;
      const above = parent?.path ?? [];
      const parentStep = above.at(-1);
      const prefix =
        container && parentStep ? [...above.slice(0, -1), { ...parentStep, alias: container }] : above;
      const path: PathStep[] = [...prefix, { name: s.name, index, shared: counts.get(s.name) ?? 1 }];
      const inBody = parent !== null && callableKinds.has(parent.kind);
      const local = (parent?.local ?? false) || (inBody && (kind === "Variable" || kind === "Constant"));
      const node: SymbolNode = {
        name: s.name,
        kind,
        range: s.range,
        selectionRange: s.selectionRange,
        parent,
        children: [],
        path,
        namePath: formatNamePath(path),
        local,
      };
      if (s.detail) node.detail = s.detail;
      const declaration = (s as NormalizedSymbol).declaration;
      if (declaration) node.declaration = declaration;
      const parts = (s as NormalizedSymbol).parts;
      if (parts && parts.length > 0) node.parts = parts;
      node.children = build(s.children ?? [], node);
      return node;
    });
  };
  return build(symbols, null);
}

export function* walk(nodes: readonly SymbolNode[]): Generator<SymbolNode> {
  for (const n of nodes) {
    yield n;
    yield* walk(n.children);
  }
}

function encloses(range: Range, pos: Range["start"]): boolean {
  return before(range.start, pos) <= 0 && before(pos, range.end) <= 0;
}

/**
 * The innermost declaration that can be named as the container of a position. Children are
 * searched even when their parent's range does not enclose the position: members of a symbol's
 * parts (Rust impl blocks) lie outside the symbol's own range.
 */
export function containingSymbol(nodes: readonly SymbolNode[], pos: Range["start"]): SymbolNode | null {
  let best: SymbolNode | null = null;
  const visit = (list: readonly SymbolNode[]) => {
    for (const n of list) {
      const inside = encloses(n.range, pos) || (n.parts ?? []).some((p) => encloses(p.range, pos));
      if (inside && !n.local && containerKinds.has(n.kind)) best = n;
      if (inside || n.parts) visit(n.children);
    }
  };
  visit(nodes);
  return best;
}

/**
 * The symbol whose identifier (selection range, or a part's) or, failing that, whole range
 * starts at `pos`.
 */
export function symbolAt(nodes: readonly SymbolNode[], pos: Range["start"]): SymbolNode | null {
  let byRange: SymbolNode | null = null;
  const at = { start: pos, end: pos };
  for (const n of walk(nodes)) {
    if (contains(n.selectionRange, at)) return n;
    if (n.parts?.some((p) => contains(p.selectionRange, at))) return n;
    if (byRange === null && before(n.range.start, pos) === 0) byRange = n;
  }
  return byRange;
}
