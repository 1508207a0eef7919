/**
 * A file's symbols as a tree with parents and name paths. Built from the server's hierarchical
 * `DocumentSymbol[]` (after the adapter's clean-up), or from flat `SymbolInformation[]` by range
 * containment for servers that only give that.
 */
import type { DocumentSymbol, Range, SymbolInformation } from "vscode-languageserver-protocol";
import type { DeclarationBounds } from "../languages/declaration.js";
import type { NormalizedSymbol, SymbolPart } from "../languages/normalized-symbol.js";
import { callableKinds, containerKinds, kindName } from "./kinds.js";
import { formatNamePath, type PathStep } from "./name-path.js";

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
  readonly parent: SymbolNode | null;
  children: SymbolNode[];
  readonly path: PathStep[];
  readonly namePath: string;
  /** A variable or constant declared inside a function body. */
  readonly local: boolean;
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

/**
 * A tree node whose `path` and `namePath` are computed when asked, from its own step and its
 * parent's: stored, they were most of a node's memory (measured on the generated 5k-file project:
 * 810 bytes a node, 122 MB for the 150k nodes of 2,600 files), and most nodes are never named.
 */
class TreeNode implements SymbolNode {
  detail?: string;
  parts?: SymbolPart[];
  declaration?: DeclarationBounds;
  children: SymbolNode[] = [];

  constructor(
    readonly name: string,
    readonly kind: string,
    readonly range: Range,
    readonly selectionRange: Range,
    readonly parent: SymbolNode | null,
    readonly local: boolean,
    private readonly step: PathStep,
    /** The block header that may name the parent's step (symbols/tree.ts `container`). */
    private readonly container: string | undefined,
  ) {}

  get path(): PathStep[] {
    const above = this.parent?.path ?? [];
    const parentStep = above.at(-1);
    const prefix =
      this.container && parentStep
        ? [...above.slice(0, -1), { ...parentStep, alias: this.container }]
        : above;
    return [...prefix, this.step];
  }

  get namePath(): string {
    return formatNamePath(this.path);
  }
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
      const inBody = parent !== null && callableKinds.has(parent.kind);
      const local = (parent?.local ?? false) || (inBody && (kind === "Variable" || kind === "Constant"));
      const node = new TreeNode(
        s.name,
        kind,
        s.range,
        s.selectionRange,
        parent,
        local,
        { name: s.name, index, shared: counts.get(s.name) ?? 1 },
        (s as NormalizedSymbol).container,
      );
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
  // A symbol's own name wins over a part's, and the deepest such symbol wins: go.ts keeps each Go
  // method's name as a part of its receiver type too (`Invoice` for `func (i Invoice) Due()`,
  // measured with gopls v0.23.0), and a method in another file than its type sits under a
  // stand-in for the type that shares the method's name range. Walk order is parents first.
  let named: SymbolNode | null = null;
  let byPart: SymbolNode | null = null;
  let byRange: SymbolNode | null = null;
  const at = { start: pos, end: pos };
  for (const n of walk(nodes)) {
    if (contains(n.selectionRange, at)) named = n;
    else if (byPart === null && n.parts?.some((p) => contains(p.selectionRange, at))) byPart = n;
    if (byRange === null && before(n.range.start, pos) === 0) byRange = n;
  }
  return named ?? byPart ?? byRange;
}
