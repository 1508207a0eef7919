/**
 * One declaration model for every language: a declaration is its head — leading doc comments,
 * line comments directly above, attributes / decorators — followed by its body, the signature
 * through the end. Language servers disagree on where a symbol's range starts (measured, see the
 * adapters): rust-analyzer starts it at the first doc comment or attribute, tsserver and pyright
 * at the first decorator but after the JSDoc / comments, the Dart server after docs and metadata.
 * Both boundaries are therefore recomputed from the text with the adapter's declaration syntax,
 * so that replacing a body keeps the head in every language.
 */
import type { DocumentSymbol, Position } from "vscode-languageserver-protocol";
import type { LexicalSyntax } from "../text/indent.js";
import { allLines, lineStarts, offsetAt, positionAt } from "../text/positions.js";

/** What a language adapter declares about its declarations' heads (see LanguageAdapter.declarations). */
export interface DeclarationSyntax extends LexicalSyntax {
  /**
   * Attribute / decorator openers. An opener ending in a bracket (`#[`) takes everything up to the
   * matching bracket; otherwise (`@`) a dotted name follows, with optional arguments in parentheses.
   */
  attributes: readonly string[];
  /** Doc comment openers (`///`, `/**`): new code that brings one (or an attribute) brings its own head. */
  docComments: readonly string[];
  /** Comment and attribute forms that belong to the enclosing item, never to the next one (`//!`, `#![`). */
  inner?: readonly string[];
  /** One level of indentation when the file shows none. */
  indentUnit: string;
}

/**
 * For servers declared in project.yml, whose language scalpel does not know: C-family and
 * script comments, Rust-style `#[…]` and `@decorator` attributes. Measured with pyright 1.1.414 as
 * such a server: a function's or method's range starts at its first `@decorator` (several stacked
 * ones included), never at the `#` comment lines above it; docstrings are inside the body.
 */
export const genericDeclarationSyntax: DeclarationSyntax = {
  lineComments: ["//", "#"],
  blockComments: [["/*", "*/"]],
  docComments: ["///", "/**", "##"],
  quotes: ['"""', "'''", "`", '"', "'"],
  attributes: ["#[", "@"],
  indentUnit: "    ",
};

/** Where a declaration's head and body start (0-based LSP positions). */
export interface DeclarationBounds {
  /** First doc comment / comment / attribute line's first character; `body` when there is none. */
  head: Position;
  /** The signature's first character (after docs and attributes). */
  body: Position;
}

const closerOf: Record<string, string> = { "[": "]", "(": ")", "{": "}" };

function isSpace(c: string | undefined): boolean {
  return c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f" || c === "\v";
}

/** Offset just past the bracket matching the one at `open`, skipping strings; -1 when unbalanced. */
function balancedEnd(text: string, open: number, syn: DeclarationSyntax): number {
  const stack: string[] = [];
  for (let i = open; i < text.length; i++) {
    const c = text[i]!;
    const quote = syn.quotes.find((q) => text.startsWith(q, i));
    if (quote && !(quote === "'" && syn.charLiterals)) {
      let j = i + quote.length;
      while (j < text.length && !text.startsWith(quote, j)) j += text[j] === "\\" ? 2 : 1;
      i = j + quote.length - 1;
      continue;
    }
    if (c in closerOf) stack.push(closerOf[c]!);
    else if (c === "]" || c === ")" || c === "}") {
      if (stack.pop() !== c) return -1;
      if (stack.length === 0) return i + 1;
    }
  }
  return -1;
}

function attributeEnd(text: string, at: number, opener: string, syn: DeclarationSyntax): number {
  const last = opener[opener.length - 1]!;
  if (last in closerOf) return balancedEnd(text, at + opener.length - 1, syn);
  const name = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*/.exec(text.slice(at + opener.length, at + 300));
  if (!name) return -1;
  const end = at + opener.length + name[0].length;
  return text[end] === "(" ? balancedEnd(text, end, syn) : end;
}

/** One piece of a declaration's head, as offsets in the text. */
export interface HeadPart {
  kind: "doc" | "comment" | "attribute";
  start: number;
  end: number;
}

/**
 * Skips whitespace, comments and attributes from `from`: `end` is the offset of the first
 * character of code (or of an inner form, which belongs to the enclosing item); `declares` tells
 * whether a doc comment or an attribute was among what was skipped; `parts` lists what was skipped.
 */
export function scanHead(
  text: string,
  from: number,
  syn: DeclarationSyntax,
): { end: number; declares: boolean; parts: HeadPart[] } {
  let i = from;
  let declares = false;
  const parts: HeadPart[] = [];
  const done = () => ({ end: i, declares, parts });
  for (;;) {
    while (i < text.length && isSpace(text[i])) i++;
    if (i >= text.length) return done();
    if (syn.inner?.some((p) => text.startsWith(p, i))) return done();
    const attr = syn.attributes.find((p) => text.startsWith(p, i));
    if (attr) {
      const end = attributeEnd(text, i, attr, syn);
      if (end < 0) return done();
      parts.push({ kind: "attribute", start: i, end });
      i = end;
      declares = true;
      continue;
    }
    const doc = syn.docComments.some((p) => text.startsWith(p, i));
    const kind = doc ? "doc" : "comment";
    if (syn.lineComments.some((p) => text.startsWith(p, i))) {
      const nl = text.slice(i).search(/[\r\n]/);
      const end = nl < 0 ? text.length : i + nl;
      parts.push({ kind, start: i, end });
      i = end;
      declares ||= doc;
      continue;
    }
    const block = syn.blockComments.find(([o]) => text.startsWith(o, i));
    if (block) {
      const end = text.indexOf(block[1], i + block[0].length);
      if (end < 0) return done();
      parts.push({ kind, start: i, end: end + block[1].length });
      i = end + block[1].length;
      declares ||= doc;
      continue;
    }
    return done();
  }
}

export function skipHead(text: string, from: number, syn: DeclarationSyntax): number {
  return scanHead(text, from, syn).end;
}

/**
 * Whether new code for a declaration replaces its head (`existingHead`: the text of its docs and
 * attributes) as well as its body. It does when the new code brings a doc comment or an attribute
 * of its own. New code that begins with plain comments only replaces a head of plain comments
 * (the caller re-sent what find_symbol showed) but never docs or attributes: it then goes below them.
 */
export function replacesHead(newText: string, existingHead: string, syn: DeclarationSyntax): boolean {
  const first = newText.search(/\S/);
  if (first < 0) return false;
  const own = scanHead(newText, first, syn);
  if (own.end === first) return false;
  return own.declares || !scanHead(existingHead, 0, syn).declares;
}

/** Lines above a declaration looked at for its head; a longer doc block is unheard of. */
const maxHeadLines = 400;

/**
 * The head and body start of the declaration whose server range is `range`. The head is the
 * topmost line, in the run of non-blank lines that ends at the range's first line, from whose
 * start only comments and attributes lead to the body. A declaration that shares its first line
 * with other code has no head. Lines at or above `floor` (the previous sibling's last line, or
 * the parent's first) are never looked at: they hold other code.
 */
export function declarationBounds(
  text: string,
  range: { start: Position; end: Position },
  syn: DeclarationSyntax,
  starts: readonly number[] = lineStarts(text),
  lines: readonly string[] = allLines(text),
  floor = -1,
): DeclarationBounds {
  const startOff = offsetAt(text, range.start, starts);
  const endOff = offsetAt(text, range.end, starts);
  let bodyOff = skipHead(text, startOff, syn);
  if (bodyOff >= endOff) bodyOff = startOff;
  const body = positionAt(text, bodyOff, starts);
  let head = range.start;
  const first = range.start.line;
  const stop = floor < first ? Math.max(floor, first - maxHeadLines) : first - maxHeadLines;
  for (let k = first; k > stop && k >= 0; k--) {
    const line = lines[k] ?? "";
    if (k < first && line.trim() === "") break;
    if (skipHead(text, starts[k] ?? 0, syn) === bodyOff) {
      const indent = line.length - line.trimStart().length;
      head = { line: k, character: indent };
    } else if (k === first) {
      break; // code before the declaration on its own line
    }
  }
  if (
    head.line > range.start.line ||
    (head.line === range.start.line && head.character > range.start.character)
  )
    head = range.start;
  return { head, body };
}

/** Copies of `symbols` (children included), each with its declaration's bounds as `declaration`. */
export function markDeclarations<T extends DocumentSymbol>(
  symbols: readonly T[],
  text: string,
  syn: DeclarationSyntax,
): T[] {
  const starts = lineStarts(text);
  const lines = allLines(text);
  const mark = (list: readonly T[], parentStart: number): T[] =>
    list.map((s, i) => {
      const prev = list[i - 1];
      const prevEnd = prev && prev.range.end.line < s.range.start.line ? prev.range.end.line : -1;
      const floor = Math.max(prevEnd, parentStart < s.range.start.line ? parentStart : -1);
      const declaration = declarationBounds(text, s.range, syn, starts, lines, floor);
      const out = { ...s, declaration } as T;
      if (s.children) out.children = mark(s.children as T[], s.range.start.line);
      return out;
    });
  return mark(symbols, -1);
}
