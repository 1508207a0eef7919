/**
 * Where symbol edits land in a file, by the one declaration model (src/languages/declaration.ts): a
 * declaration is its head (doc comments, comments directly above, attributes / decorators) and its
 * body (signature through end).
 * - replace: the body is replaced and the head kept, unless the new text brings its own head
 *   (begins with a doc comment or an attribute, or re-sends a head of plain comments): then head
 *   and body are both replaced;
 * - insert before: above the head; insert after: after the body;
 * - delete: head and body, with one of the blank lines around them.
 * New code is re-indented to the declaration's indentation (src/text/indent.ts), by structure
 * when it arrives without any indentation, with the file's indentation unit.
 */
import type { Position, TextEdit } from "vscode-languageserver-protocol";
import {
  type DeclarationSyntax,
  genericDeclarationSyntax,
  replacesHead,
  scanHead,
} from "../languages/declaration.js";
import type { SymbolNode } from "../symbols/tree.js";
import { detectIndentUnit, indentationOf, reindent } from "../text/indent.js";
import { allLines, detectEol, lineStarts, offsetAt, positionAt } from "../text/positions.js";

export interface SymbolSite {
  /** Every line a position can name (`allLines`: a final empty line included). */
  lines: string[];
  eol: string;
  /** Indentation of the declaration's first line. */
  indent: string;
  /** One indentation level of the file. */
  unit: string;
  syntax: DeclarationSyntax;
  /** Start of the declaration's docs / attributes (its body start when it has none). */
  head: Position;
  /** Start of the signature. */
  body: Position;
  /** The text of the docs and attributes (`head` to `body`). */
  headText: string;
  /** First line of the head (0-based). */
  headLine: number;
  endLine: number;
  /** The declaration shares its first or last line with other code. */
  inline: boolean;
}

export function siteOf(
  text: string,
  node: SymbolNode,
  syntax: DeclarationSyntax = genericDeclarationSyntax,
): SymbolSite {
  const lines = allLines(text);
  const starts = lineStarts(text);
  const { end } = node.range;
  const head = node.declaration?.head ?? node.range.start;
  const body = node.declaration?.body ?? node.range.start;
  const first = lines[head.line] ?? "";
  const last = lines[end.line] ?? "";
  const inline =
    first.slice(0, head.character).trim() !== "" || last.slice(end.character).trim().replace(/^;/, "") !== "";
  return {
    lines,
    eol: detectEol(text),
    indent: indentationOf(first),
    unit: detectIndentUnit(text, syntax.indentUnit),
    syntax,
    head: inline ? node.range.start : head,
    body: inline ? node.range.start : body,
    headText: inline ? "" : text.slice(offsetAt(text, head, starts), offsetAt(text, body, starts)),
    headLine: inline ? node.range.start.line : head.line,
    endLine: end.line,
    inline,
  };
}

function isBlank(line: string | undefined): boolean {
  return line !== undefined && line.trim() === "";
}

/** Whether neighbours of this declaration are separated by blank lines (the file's own style). */
function spaced(site: SymbolSite): boolean {
  return isBlank(site.lines[site.headLine - 1]) || isBlank(site.lines[site.endLine + 1]);
}

function trimBody(body: string): string {
  return body.replace(/^(?:[ \t]*(?:\r\n|\n|\r))+/, "").replace(/(?:(?:\r\n|\n|\r)[ \t]*)+$/, "");
}

function moved(site: SymbolSite, body: string): string {
  return reindent(trimBody(body), site.indent, site.eol, { unit: site.unit, lexical: site.syntax });
}

export function replaceBodyEdit(site: SymbolSite, node: SymbolNode, body: string): TextEdit {
  const text = moved(site, body);
  if (site.inline) {
    return { range: node.range, newText: text.slice(site.indent.length) };
  }
  const from = replacesHead(body, site.headText, site.syntax) ? headStart(site, body) : site.body;
  const before = (site.lines[from.line] ?? "").slice(0, from.character);
  if (before.trim() !== "") {
    // Attributes share the signature's line (`@override void f()`): they stay, the body follows them.
    return { range: { start: from, end: node.range.end }, newText: text.slice(site.indent.length) };
  }
  return { range: { start: { line: from.line, character: 0 }, end: node.range.end }, newText: text };
}

/**
 * Where a replacement that brings its own head starts. New code that brings attributes but no
 * comment keeps the existing doc comments above them: find_symbol leaves a long doc comment out of
 * a body, so the body it shows must replace the code without taking the docs with it.
 */
function headStart(site: SymbolSite, body: string): Position {
  const first = body.search(/\S/);
  const own = scanHead(body, Math.max(first, 0), site.syntax).parts;
  if (own.some((p) => p.kind !== "attribute")) return site.head;
  const existing = scanHead(site.headText, 0, site.syntax).parts;
  const firstAttribute = existing.find((p) => p.kind === "attribute");
  if (!existing.some((p) => p.kind !== "attribute")) return site.head;
  if (!firstAttribute) return site.body;
  const at = positionAt(site.headText, firstAttribute.start);
  return at.line === 0
    ? { line: site.head.line, character: site.head.character + at.character }
    : { line: site.head.line + at.line, character: at.character };
}

export function insertBeforeEdit(site: SymbolSite, body: string): TextEdit {
  const text = moved(site, body);
  const gap = spaced(site) ? site.eol : "";
  const at = { line: site.headLine, character: 0 };
  return { range: { start: at, end: at }, newText: `${text}${site.eol}${gap}` };
}

export function insertAfterEdit(site: SymbolSite, body: string): TextEdit {
  const text = moved(site, body);
  const gap = spaced(site) ? site.eol : "";
  const at = { line: site.endLine, character: (site.lines[site.endLine] ?? "").length };
  return { range: { start: at, end: at }, newText: `${site.eol}${gap}${text}` };
}

/** Removes the declaration with its docs and attributes and one of the blank lines around it. */
export function deleteEdit(site: SymbolSite, node: SymbolNode): TextEdit {
  if (site.inline) return { range: node.range, newText: "" };
  let from = site.headLine;
  let to = site.endLine + 1;
  if (isBlank(site.lines[to]) && to < site.lines.length - 1) to++;
  else if (isBlank(site.lines[from - 1])) from--;
  const end =
    to >= site.lines.length
      ? { line: site.endLine, character: (site.lines[site.endLine] ?? "").length }
      : { line: to, character: 0 };
  if (to >= site.lines.length && from > 0) {
    // Last declaration of the file: take the line break before it instead of the one after.
    return {
      range: { start: { line: from - 1, character: (site.lines[from - 1] ?? "").length }, end },
      newText: "",
    };
  }
  return { range: { start: { line: from, character: 0 }, end }, newText: "" };
}
