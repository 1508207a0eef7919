/**
 * The TypeScript adapters' symbol clean-up and declaration syntax, measured on tsls 5.3.0 /
 * tsserver 5.9.3 (the native backend reuses them): callbacks and unnamed wrappers, declarator
 * ranges widened to their statement, type aliases told apart from variables.
 */
import { type DocumentSymbol, SymbolKind } from "vscode-languageserver-protocol";
import type { DeclarationSyntax } from "../src/languages/declaration.js";
import type { NormalizedSymbol } from "../src/languages/normalized-symbol.js";

/**
 * tsserver's navigation tree names functions and classes that have no name of their own:
 * `xs.map() callback`, `forEach() callback`, `describe("parse") callback` (string arguments are
 * quoted into the name), `<function>` (IIFE, computed callee), `<class>` (class expression). No
 * identifier can contain a space or `<`, so these names never belong to a declared symbol.
 */
const CALLBACK = / callback$/;

/** An IIFE (`<function>`, often a whole module's wrapper) or a class expression (`<class>`). */
const UNNAMED_WRAPPER = /^<(?:function|class|unknown)>$/;

/**
 * Marks callbacks passed as arguments `anonymous`: the symbol tree drops them with all they declare
 * (src/symbols/tree.ts). An IIFE or class expression is dropped but what it declares is kept, one
 * level up: a UMD wrapper's functions are the module's, `const Foo = class { m() {} }` has `Foo/m`.
 * Restores source order: tsserver sorts children by name.
 */
export function normalizeTypescriptSymbols(symbols: DocumentSymbol[]): NormalizedSymbol[] {
  const out: NormalizedSymbol[] = [];
  for (const sym of symbols) {
    if (CALLBACK.test(sym.name)) {
      out.push({ ...sym, anonymous: true });
      continue;
    }
    const children = sym.children ? normalizeTypescriptSymbols(sym.children) : undefined;
    if (UNNAMED_WRAPPER.test(sym.name)) {
      if (children) out.push(...children);
    } else {
      out.push(children ? { ...sym, children } : sym);
    }
  }
  return out.sort(
    (a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character,
  );
}

/**
 * tsserver's range for `export const X = 1;` covers only the declarator `X = 1` (observed on 5.9):
 * replacing or deleting that range would leave `export const ;` behind. A declarator that is the
 * only one of its statement gets the statement's range: keywords before it, the `;` after it.
 */
const declarationKeywords = /^\s*(?:(?:export|declare|default)\s+)*(?:const|let|var|using)\s+$/;

export function widenDeclarations(symbols: DocumentSymbol[], lines: readonly string[]): DocumentSymbol[] {
  return symbols.map((sym) => {
    const children = sym.children ? widenDeclarations(sym.children, lines) : undefined;
    let out = children ? { ...sym, children } : sym;
    if (sym.kind === SymbolKind.Variable || sym.kind === SymbolKind.Constant) {
      const { start, end } = sym.range;
      const before = (lines[start.line] ?? "").slice(0, start.character);
      const after = (lines[end.line] ?? "").slice(end.character);
      const tail = /^\s*;?\s*(?:\/\/.*)?$/.exec(after);
      if (declarationKeywords.test(before) && tail) {
        const semi = after.indexOf(";");
        out = {
          ...out,
          range: {
            start: { line: start.line, character: before.length - before.trimStart().length },
            end: { line: end.line, character: semi >= 0 ? end.character + semi + 1 : end.character },
          },
        };
      }
    }
    return out;
  });
}

/**
 * typescript-language-server 5.3.0 maps tsserver's kind `type` (a `type X = …` alias) to no
 * SymbolKind, so it falls back to Variable. Reported as `TypeParameter` instead, the kind
 * rust-analyzer gives its type aliases (LSP has no TypeAlias kind): the declaration's own text
 * tells, since its range starts at `export`/`declare` or at `type`.
 */
const typeAliasStart = /^(?:(?:export|declare|default)\s+)*type\s+([\p{L}\p{N}_$]+)/u;

export function markTypeAliases<T extends DocumentSymbol>(symbols: T[], lines: readonly string[]): T[] {
  return symbols.map((sym) => {
    const children = sym.children ? markTypeAliases(sym.children as T[], lines) : undefined;
    const out = children ? { ...sym, children } : sym;
    if (sym.kind !== SymbolKind.Variable) return out;
    const { start } = sym.range;
    const alias = typeAliasStart.exec((lines[start.line] ?? "").slice(start.character));
    return alias?.[1] === sym.name ? { ...out, kind: SymbolKind.TypeParameter } : out;
  });
}

/**
 * Measured with tsls 5.3.0 / tsserver 5.9.3: a symbol's range starts at its first decorator
 * (`@deco` above a class or method, `@deco @deco` on one line) or at `export`, never at the JSDoc
 * or `//` lines above it. Those are the head. `#` is not a comment here (`#private` fields).
 */
export const typescriptDeclarations: DeclarationSyntax = {
  lineComments: ["//"],
  blockComments: [["/*", "*/"]],
  docComments: ["/**"],
  quotes: ["`", '"', "'"],
  attributes: ["@"],
  indentUnit: "  ",
};
