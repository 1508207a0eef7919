/**
 * rust-analyzer's document symbols → name paths. rust-analyzer 0.0.340 lists an impl block as its
 * own symbol (kind Object, name `impl Money` / `impl fmt::Display for Money`, selectionRange = the
 * self type in the header, no detail) whose children are the methods. An agent addresses a method
 * as `Money/method`, whichever block defines it, so impl blocks are not path segments: their
 * members join the type's own symbol at the same level (fields first by position, then methods),
 * numbered like overloads when several impls define the same name (`Money/from[0]`,
 * `Money/from[1]`). The impl header stays visible in each member's `detail`, and the block's header
 * range is kept as a `part` of the type so that locations in it (rust-analyzer's answer to
 * "implementations of a trait" points at the self type in the header) still find the type.
 * When the type is declared elsewhere, the first impl block stands in for it, named after it.
 */
import { type DocumentSymbol, SymbolKind } from "vscode-languageserver-protocol";
import type { NormalizedSymbol, SymbolPart } from "../src/languages/normalized-symbol.js";
import { allLines } from "../src/text/lines.js";

/** Kinds of the declarations an impl block can attach to (a union is reported as Struct). */
const typeKinds = new Set<SymbolKind>([
  SymbolKind.Struct,
  SymbolKind.Enum,
  SymbolKind.Interface,
  SymbolKind.Class,
  SymbolKind.TypeParameter,
]);

function isImpl(sym: DocumentSymbol): boolean {
  return sym.kind === SymbolKind.Object && /^impl\b/.test(sym.name);
}

function textAt(lines: readonly string[], sym: DocumentSymbol): string {
  const { start, end } = sym.selectionRange;
  if (start.line !== end.line) return "";
  return (lines[start.line] ?? "").slice(start.character, end.character);
}

/**
 * The self type's bare name: `Money` for `Money`, `fmt::Money`, `&mut Money`, `Wrapper<T>`,
 * `dyn Shape`. Read from the header text rust-analyzer selects, else from the symbol's name.
 */
export function selfTypeName(implName: string, selected = ""): string {
  let ty = selected.trim();
  if (ty === "") {
    const forAt = implName.lastIndexOf(" for ");
    ty = forAt >= 0 ? implName.slice(forAt + 5) : implName.replace(/^impl\s*(?:<[^>]*>)?\s*/, "");
  }
  ty = ty.replace(/^(?:&\s*(?:'\w+\s+)?(?:mut\s+)?|dyn\s+|\*const\s+|\*mut\s+)+/, "");
  const lt = ty.indexOf("<");
  if (lt >= 0) ty = ty.slice(0, lt);
  const last = ty.split("::").pop() ?? ty;
  return last.trim() || implName;
}

function withHeader(member: DocumentSymbol, header: string): NormalizedSymbol {
  return { ...member, detail: member.detail ? `${header} · ${member.detail}` : header, container: header };
}

function byPosition(a: DocumentSymbol, b: DocumentSymbol): number {
  return a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character;
}

export function normalizeRustSymbols(symbols: DocumentSymbol[], text: string): DocumentSymbol[] {
  return normalizeLevel(symbols, allLines(text));
}

function normalizeLevel(symbols: readonly DocumentSymbol[], lines: readonly string[]): NormalizedSymbol[] {
  const out: NormalizedSymbol[] = [];
  const members = new Map<NormalizedSymbol, DocumentSymbol[]>();
  const impls = symbols.filter(isImpl);
  const typeByName = new Map<string, NormalizedSymbol>();
  for (const sym of symbols) {
    if (isImpl(sym)) continue;
    const children = sym.children ? normalizeLevel(sym.children, lines) : undefined;
    const copy: NormalizedSymbol = children ? { ...sym, children } : { ...sym };
    out.push(copy);
    if (typeKinds.has(sym.kind) && !typeByName.has(sym.name)) typeByName.set(sym.name, copy);
  }
  for (const impl of [...impls].sort(byPosition)) {
    const name = selfTypeName(impl.name, textAt(lines, impl));
    const own = (impl.children ? normalizeLevel(impl.children, lines) : []).map((m) =>
      withHeader(m, impl.name),
    );
    const part: SymbolPart = { range: impl.range, selectionRange: impl.selectionRange, detail: impl.name };
    let target = typeByName.get(name);
    if (!target) {
      // The type is declared in another file (or is foreign): this block stands in for it.
      target = {
        name,
        kind: impl.kind,
        detail: impl.name,
        range: impl.range,
        selectionRange: impl.selectionRange,
      };
      typeByName.set(name, target);
      out.push(target);
    } else {
      target.parts = [...(target.parts ?? []), part];
    }
    members.set(target, [...(members.get(target) ?? []), ...own]);
  }
  for (const [target, extra] of members) {
    target.children = [...(target.children ?? []), ...extra].sort(byPosition);
  }
  return out.sort(byPosition);
}
