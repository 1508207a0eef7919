/**
 * Where symbol edits land in a file: the declaration's own lines, the comment block and blank-line
 * style around it, and the indentation new code must take.
 */
import type { TextEdit } from "vscode-languageserver-protocol";
import { detectEol, indentationOf, reindent } from "../edits/text.js";
import type { SymbolNode } from "../symbols/tree.js";

export interface SymbolSite {
  lines: string[];
  eol: string;
  /** Indentation of the declaration's first line. */
  indent: string;
  /** First line of the declaration including its leading doc comment / line comments (0-based). */
  headLine: number;
  startLine: number;
  endLine: number;
  /** The declaration shares its first or last line with other code. */
  inline: boolean;
}

export function siteOf(text: string, node: SymbolNode): SymbolSite {
  const lines = text.split(/\r?\n/);
  const { start, end } = node.range;
  const first = lines[start.line] ?? "";
  const last = lines[end.line] ?? "";
  const inline =
    first.slice(0, start.character).trim() !== "" ||
    last.slice(end.character).trim().replace(/^;/, "") !== "";
  return {
    lines,
    eol: detectEol(text),
    indent: indentationOf(first),
    headLine: commentHead(lines, start.line),
    startLine: start.line,
    endLine: end.line,
    inline,
  };
}

/** Walks up over a JSDoc block or `//` lines directly above a declaration: they belong to it. */
function commentHead(lines: readonly string[], startLine: number): number {
  let head = startLine;
  let l = startLine - 1;
  if (l >= 0 && /\*\/\s*$/.test(lines[l] ?? "")) {
    while (l >= 0 && !/^\s*\/\*/.test(lines[l] ?? "")) l--;
    if (l >= 0) head = l;
    l = head - 1;
  }
  while (l >= 0 && /^\s*\/\//.test(lines[l] ?? "")) head = l--;
  return head;
}

function isBlank(line: string | undefined): boolean {
  return line !== undefined && line.trim() === "";
}

/** Whether neighbours of this declaration are separated by blank lines (the file's own style). */
function spaced(site: SymbolSite): boolean {
  return isBlank(site.lines[site.headLine - 1]) || isBlank(site.lines[site.endLine + 1]);
}

function trimBody(body: string): string {
  return body.replace(/^(?:[ \t]*\r?\n)+/, "").replace(/(?:\r?\n[ \t]*)+$/, "");
}

export function replaceBodyEdit(site: SymbolSite, node: SymbolNode, body: string): TextEdit {
  const text = reindent(trimBody(body), site.indent, site.eol);
  if (site.inline) {
    return { range: node.range, newText: text.slice(site.indent.length) };
  }
  return {
    range: { start: { line: site.startLine, character: 0 }, end: node.range.end },
    newText: text,
  };
}

export function insertBeforeEdit(site: SymbolSite, body: string): TextEdit {
  const text = reindent(trimBody(body), site.indent, site.eol);
  const gap = spaced(site) ? site.eol : "";
  const at = { line: site.headLine, character: 0 };
  return { range: { start: at, end: at }, newText: `${text}${site.eol}${gap}` };
}

export function insertAfterEdit(site: SymbolSite, body: string): TextEdit {
  const text = reindent(trimBody(body), site.indent, site.eol);
  const gap = spaced(site) ? site.eol : "";
  const at = { line: site.endLine, character: (site.lines[site.endLine] ?? "").length };
  return { range: { start: at, end: at }, newText: `${site.eol}${gap}${text}` };
}

/** Removes the declaration with its comments and one of the blank lines around it. */
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
