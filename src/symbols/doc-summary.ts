/**
 * A long doc comment in a symbol's source, said in one line: its first sentence and how many lines
 * it has. Measured on date-fns: `parse` has 298 lines of JSDoc above 172 lines of code, so a body
 * with its docs cost 31,000 characters and did not fit the default answer; the code is what an
 * agent reads a body for.
 */
import { type DeclarationSyntax, scanHead } from "../languages/declaration.js";
import { lineStarts, offsetAt, positionAt } from "../text/positions.js";
import type { SymbolNode } from "./tree.js";

/** Doc comments up to this many lines stay in the body as they are. */
export const inlineDocLines = 10;

/** Longest first sentence shown. */
const maxSentenceChars = 200;

export interface DocSummary {
  /** 0-based lines that hold only the doc comment (left out of the body). */
  lines: Set<number>;
  /** The comment's first sentence, without comment markers. */
  sentence: string;
}

/** The comment lines of `node`'s head when there are more than `inlineDocLines`; null otherwise. */
export function longDocs(text: string, node: SymbolNode, syntax: DeclarationSyntax): DocSummary | null {
  const bounds = node.declaration;
  if (!bounds) return null;
  const starts = lineStarts(text);
  const headOff = offsetAt(text, bounds.head, starts);
  const bodyOff = offsetAt(text, bounds.body, starts);
  const comments = scanHead(text, headOff, syntax).parts.filter(
    (p) => p.kind !== "attribute" && p.end <= bodyOff,
  );
  const lines = new Set<number>();
  for (const part of comments) {
    const from = positionAt(text, part.start, starts);
    const to = positionAt(text, part.end, starts);
    // A line that also holds code or an attribute stays in the body.
    const lineStart = starts[from.line] ?? 0;
    const lineEnd = starts[to.line + 1] ?? text.length;
    if (text.slice(lineStart, part.start).trim() !== "" || text.slice(part.end, lineEnd).trim() !== "")
      continue;
    for (let l = from.line; l <= to.line; l++) lines.add(l);
  }
  if (lines.size <= inlineDocLines) return null;
  const words = comments.map((p) => stripMarkers(text.slice(p.start, p.end))).join("\n");
  return { lines, sentence: firstSentence(words) };
}

/** Comment text without `/**`, `*\/`, leading `*`, `///`, `//`, `#`. */
function stripMarkers(comment: string): string {
  return comment
    .replace(/^\/\*+!?/, "")
    .replace(/\*+\/$/, "")
    .split(/\r\n|\n|\r/)
    .map((l) => l.replace(/^\s*(?:\*(?!\/)|\/\/[/!]?|#+)\s?/, ""))
    .join("\n");
}

function firstSentence(words: string): string {
  const paragraph = words.trim().split(/\n\s*\n/)[0] ?? "";
  const flat = paragraph.replace(/\s+/g, " ").trim();
  const end = /[.!?](?=\s|$)/.exec(flat);
  const sentence = end ? flat.slice(0, end.index + 1) : flat;
  return sentence.length > maxSentenceChars ? `${sentence.slice(0, maxSentenceChars - 1)}…` : sentence;
}
