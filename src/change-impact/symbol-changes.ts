/**
 * How one file's symbols changed between two texts, from the two symbol trees the server gave:
 * symbols are paired by name path; a pair whose signature differs changed its signature, one whose
 * text differs otherwise changed its body; a removed and an added symbol of one kind whose texts
 * are the same once their own names are set aside were renamed. Compared are the declarations
 * other code can name: top-level symbols and the members of types, never a function's insides
 * (a local's change is its function's body change). A type's own change is its header's; its
 * members speak for themselves, and an interface that gained or lost one is named for its
 * implementations.
 */
import { callableKinds } from "../symbols/kinds.js";
import type { SymbolNode } from "../symbols/tree.js";
import { lineStarts } from "../text/positions.js";
import { type DeclarationText, declarationText } from "./declaration-text.js";

export type SymbolChangeKind = "added" | "removed" | "body" | "signature" | "renamed";

export interface SymbolChange {
  namePath: string;
  kind: string;
  change: SymbolChangeKind;
  /** A renamed symbol's name path before. */
  from?: string;
  /** The symbol in the base text (removed, renamed, changed). */
  base?: SymbolNode;
  /** The symbol in the work tree text (added, renamed, changed). */
  now?: SymbolNode;
}

export interface MemberChange {
  /** The interface in the work tree text. */
  now: SymbolNode;
  added: string[];
  removed: string[];
}

export interface FileSymbolChanges {
  symbols: SymbolChange[];
  interfaces: MemberChange[];
}

/** Kinds whose members are compared one by one (their own text is their header). */
const typeKinds = new Set(["Class", "Interface", "Struct", "Enum", "Namespace", "Module", "Object"]);
/** Kinds whose implementations are asked for when their members change. */
export const interfaceKinds = new Set(["Interface"]);

interface Entry {
  node: SymbolNode;
  text: DeclarationText;
}

/** The declarations other code can name, by name path, each with its text. */
function declarations(roots: readonly SymbolNode[], text: string): Map<string, Entry> {
  const starts = lineStarts(text);
  const out = new Map<string, Entry>();
  const visit = (nodes: readonly SymbolNode[]) => {
    for (const n of nodes) {
      if (n.local) continue;
      out.set(n.namePath, { node: n, text: declarationText(text, n, starts) });
      if (!callableKinds.has(n.kind)) visit(n.children);
    }
  };
  visit(roots);
  return out;
}

/** A declaration's text with its own name set aside (for pairing renames). */
export function unnamed(e: { node: SymbolNode; text: DeclarationText }): string {
  return e.text.whole.split(e.node.name).join("\u0000");
}

const isType = (n: SymbolNode) => typeKinds.has(n.kind) && n.children.some((c) => !c.local);

/** `before` null: the file is new; `after` null: it is gone. */
export function compareSymbols(
  before: { roots: readonly SymbolNode[]; text: string } | null,
  after: { roots: readonly SymbolNode[]; text: string } | null,
): FileSymbolChanges {
  const old = before ? declarations(before.roots, before.text) : new Map<string, Entry>();
  const now = after ? declarations(after.roots, after.text) : new Map<string, Entry>();
  const symbols: SymbolChange[] = [];
  const removed: Entry[] = [];
  const added: Entry[] = [];
  for (const [path, b] of old) {
    const a = now.get(path);
    if (!a || a.node.kind !== b.node.kind) {
      removed.push(b);
      continue;
    }
    const type = isType(a.node) || isType(b.node);
    const sameSignature = a.text.signature === b.text.signature;
    if (!sameSignature) symbols.push(change(a, "signature", b));
    else if (!type && a.text.whole !== b.text.whole) symbols.push(change(a, "body", b));
  }
  for (const [path, a] of now) {
    const b = old.get(path);
    if (!b || b.node.kind !== a.node.kind) added.push(a);
  }
  // A removed symbol whose whole text, name aside, reappears under another name of its kind.
  for (const b of removed) {
    const i = added.findIndex((a) => a.node.kind === b.node.kind && unnamed(a) === unnamed(b));
    const a = added[i];
    if (a === undefined || a.node.name === b.node.name) {
      symbols.push({ namePath: b.node.namePath, kind: b.node.kind, change: "removed", base: b.node });
      continue;
    }
    added.splice(i, 1);
    symbols.push({ ...change(a, "renamed", b), from: b.node.namePath });
  }
  for (const a of added)
    symbols.push({ namePath: a.node.namePath, kind: a.node.kind, change: "added", now: a.node });
  // Members of a type changed under it: skipped above when the type itself was added or removed.
  const inGone = (s: SymbolChange) =>
    s.change === "removed" && symbols.some((p) => p.change === "removed" && s.base?.parent === p.base);
  const inNew = (s: SymbolChange) =>
    s.change === "added" && symbols.some((p) => p.change === "added" && s.now?.parent === p.now);
  const kept = symbols.filter((s) => !inGone(s) && !inNew(s));
  return { symbols: kept.sort(byPlace), interfaces: memberChanges(kept, now) };
}

function change(a: Entry, kind: SymbolChangeKind, b: Entry): SymbolChange {
  return { namePath: a.node.namePath, kind: a.node.kind, change: kind, base: b.node, now: a.node };
}

/** Interfaces present in the work tree whose members were added or removed. */
function memberChanges(symbols: readonly SymbolChange[], now: Map<string, Entry>): MemberChange[] {
  const byParent = new Map<string, MemberChange>();
  for (const s of symbols) {
    const parent = s.change === "added" ? s.now?.parent : s.change === "removed" ? s.base?.parent : null;
    if (!parent || !interfaceKinds.has(parent.kind)) continue;
    const owner = now.get(parent.namePath)?.node;
    if (!owner || !interfaceKinds.has(owner.kind)) continue;
    const entry = byParent.get(owner.namePath) ?? { now: owner, added: [], removed: [] };
    (s.change === "added" ? entry.added : entry.removed).push(s.namePath);
    byParent.set(owner.namePath, entry);
  }
  return [...byParent.values()];
}

function byPlace(a: SymbolChange, b: SymbolChange): number {
  const la = (a.now ?? a.base)?.range.start.line ?? 0;
  const lb = (b.now ?? b.base)?.range.start.line ?? 0;
  return la - lb || a.namePath.localeCompare(b.namePath);
}
