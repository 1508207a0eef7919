/**
 * A declaration's text split into what its users depend on (the signature) and the rest (the
 * body), from the text alone so that every language is read the same way. The signature runs from
 * the declaration's first character of code (after docs and attributes: declaration.ts) to its
 * body's opening brace at bracket depth 0; a declaration that assigns a value (`const x = …`,
 * `var x = …`) ends its signature at the `=` unless an arrow function follows, whose parameters
 * belong to it; a type alias and a declaration without either (an interface member, a field) are
 * all signature. Whitespace runs count as one space: reformatting is no change.
 */
import type { SymbolNode } from "../symbols/tree.js";
import { lineStarts, offsetAt } from "../text/positions.js";

export interface DeclarationText {
  signature: string;
  /** The whole declaration from its first character of code, docs left out. */
  whole: string;
}

const squash = (s: string) => s.replace(/\s+/g, " ").trim();
const opens: Record<string, string> = { "(": ")", "[": "]" };
/** `type T = …` (TypeScript, Rust, a Go alias), not Go's `type T struct {`, whose members speak for it. */
const typeAlias = /^(?:export\s+)?(?:declare\s+)?(?:pub(?:\([^)]*\))?\s+)?type\s+[\w$]+\s*(?:<[^=]*>)?\s*=/;

/** Index of the signature's end in `code` (its whole length when it is all signature). */
function signatureEnd(code: string): number {
  if (typeAlias.test(code)) return code.length;
  let depth = 0;
  let assign = -1;
  for (let i = 0; i < code.length; i++) {
    const c = code[i]!;
    if (c === '"' || c === "'" || c === "`") {
      const close = code.indexOf(c, i + 1);
      if (close < 0) break;
      i = close;
      continue;
    }
    if (c in opens) depth++;
    else if (c === ")" || c === "]") depth = Math.max(0, depth - 1);
    if (depth > 0) continue;
    if (c === "{") return assign >= 0 && !code.slice(assign, i).includes("=>") ? assign : i;
    if (c === "=" && assign < 0 && !"=<>!+-*/%&|^:".includes(code[i - 1] ?? "") && code[i + 1] !== "=") {
      if (code[i + 1] === ">") continue;
      assign = i;
    }
  }
  if (assign >= 0) {
    const arrow = code.indexOf("=>", assign);
    return arrow >= 0 ? arrow + 2 : assign;
  }
  return code.length;
}

export function declarationText(text: string, node: SymbolNode, starts = lineStarts(text)): DeclarationText {
  const from = offsetAt(text, node.declaration?.body ?? node.range.start, starts);
  const to = offsetAt(text, node.range.end, starts);
  const code = text.slice(from, to);
  return { signature: squash(code.slice(0, signatureEnd(code))), whole: squash(code) };
}
