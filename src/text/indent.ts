/**
 * Moving code to a new indentation. Two cases:
 * - The body keeps some indentation of its own: it is moved relatively (its common indentation
 *   removed, the target's added), which keeps whatever shape the caller gave it.
 * - The body arrives with no indentation at all (every line at column 0, more than one line): its
 *   shape is lost, so it is rebuilt from its structure — nesting depth from brackets, closers
 *   dedenting — with the file's indentation unit.
 */
import { splitLines } from "./positions.js";

/** What the structural re-indenter must know of a language to find brackets that are code. */
export interface LexicalSyntax {
  /** Line comment openers, e.g. `//`. */
  lineComments: readonly string[];
  /** Block comment delimiters, e.g. `["/*", "*\/"]`. */
  blockComments: ReadonlyArray<readonly [string, string]>;
  /** String delimiters, longest first (`"""` before `"`); a string may span lines. */
  quotes: readonly string[];
  /** `'x'` is a char literal and `'a` a lifetime or label (Rust), not a string quote. */
  charLiterals?: boolean;
  /**
   * A line that introduces clause lines before a body (Rust's lone `where`): the lines after it sit
   * one level deeper until the one that opens the body with `{`, which is level with it again.
   */
  clauseLine?: RegExp;
}

/** C-family defaults (TypeScript, JavaScript, Dart, Java, C#). */
export const cLikeLexical: LexicalSyntax = {
  lineComments: ["//"],
  blockComments: [["/*", "*/"]],
  quotes: ["`", '"', "'"],
};

export interface ReindentOptions {
  /** One level of indentation in the target file (`"  "`, `"    "`, `"\t"`). Default two spaces. */
  unit?: string;
  /** How to tell code brackets from brackets in strings and comments. Default C-like. */
  lexical?: LexicalSyntax;
}

export function indentationOf(line: string): string {
  return /^[ \t]*/.exec(line)?.[0] ?? "";
}

export function commonIndent(lines: readonly string[]): string {
  let common: string | null = null;
  for (const l of lines) {
    const ind = indentationOf(l);
    if (common === null) {
      common = ind;
      continue;
    }
    let k = 0;
    while (k < common.length && k < ind.length && common[k] === ind[k]) k++;
    common = common.slice(0, k);
    if (common === "") break;
  }
  return common ?? "";
}

/**
 * Moves `body` to the indentation `indent`: its common leading indentation is removed, every
 * non-blank line gets `indent`, blank lines become empty, and line endings become `eol`.
 *
 * Bodies copied from a declaration's start column have an unindented first line and the rest at
 * their original depth. That shape is recognised when the body ends with a closing line (`}`, `)`,
 * `]`, `end`) indented like the rest's common indentation, i.e. level with the first line.
 *
 * A body with no indentation at all is first re-indented by its structure (`structuralIndent`).
 */
export function reindent(body: string, indent: string, eol: string, opts: ReindentOptions = {}): string {
  let lines = body.split(/\r\n|\n|\r/);
  const nonBlank = lines.map((l, i) => ({ l, i })).filter(({ l }) => l.trim() !== "");
  if (nonBlank.length >= 2 && nonBlank.every(({ l }) => indentationOf(l) === "")) {
    lines = structuralIndent(lines, opts.unit ?? "  ", opts.lexical ?? cLikeLexical);
    return lines.map((l) => (l.trim() === "" ? "" : indent + l)).join(eol);
  }
  const first = nonBlank[0];
  let common = commonIndent(nonBlank.map(({ l }) => l));
  let skipFirst = -1;
  if (first && indentationOf(first.l) === "" && nonBlank.length >= 2) {
    const rest = nonBlank.slice(1).map(({ l }) => l);
    const restCommon = commonIndent(rest);
    const last = rest[rest.length - 1] ?? "";
    if (restCommon !== "" && indentationOf(last) === restCommon && /^(?:[}\])]|end\b)/.test(last.trim())) {
      common = restCommon;
      skipFirst = first.i;
    }
  }
  return lines
    .map((l, i) => {
      if (l.trim() === "") return "";
      const stripped = i === skipFirst ? l : l.slice(common.length);
      return indent + stripped;
    })
    .join(eol);
}

const openers = "{([";
const closers = "})]";

/** Where a line starts: in code, inside a multi-line string (kept verbatim), or inside a block comment. */
type LineStart = "code" | "string" | "comment";

/**
 * Indents unindented lines by nesting: a line sits one `unit` deeper than the line that opened
 * the innermost bracket (`{ ( [`) still open before its first token; the closers it begins with
 * close first (`} else {`, `});`). Brackets opened on one line count as one level
 * (`xs.map((v) => {` indents its body once). Brackets inside strings, template literals,
 * char literals and comments do not count; lines that start inside a multi-line string are kept
 * as they are (their content is data), lines inside a block comment get one space before a
 * leading `*` (the JSDoc / rustdoc block shape). Continuation lines stay at their depth.
 */
export function structuralIndent(lines: readonly string[], unit: string, lex: LexicalSyntax): string[] {
  /** For each open bracket, the level of the line that opened it: brackets opened on one line share a level. */
  const stack: number[] = [];
  const inner = () => (stack.length === 0 ? 0 : stack[stack.length - 1]! + 1);
  /** The closing delimiter of the string or comment that the previous line left open. */
  let open: { close: string; kind: "string" | "comment" } | null = null;
  const out: string[] = [];
  /** The level of a clause line (`where`) whose clauses are still being listed. */
  let clause: number | null = null;
  for (const line of lines) {
    let i = 0;
    let start: LineStart = "code";
    if (open) {
      start = open.kind;
      const end = findClose(line, 0, open.close, open.kind === "string");
      if (end < 0) {
        out.push(start === "string" ? line : commentLine(line, inner(), unit));
        continue;
      }
      i = end;
      open = null;
    }
    const levelAtStart = inner();
    /** This line's level: known at its first token that is not a closer. */
    let level: number | null = start === "code" ? null : levelAtStart;
    while (i < line.length) {
      const c = line[i]!;
      if (c === " " || c === "\t") {
        i++;
        continue;
      }
      if (closers.includes(c)) {
        stack.pop();
        i++;
        continue;
      }
      if (level === null && clause !== null) {
        level = c === "{" ? clause : clause + 1;
        if (c === "{") clause = null;
      }
      level ??= inner();
      if (lex.lineComments.some((p) => line.startsWith(p, i))) break;
      const block = lex.blockComments.find(([o]) => line.startsWith(o, i));
      if (block) {
        const end = findClose(line, i + block[0].length, block[1], false);
        if (end < 0) {
          open = { close: block[1], kind: "comment" };
          break;
        }
        i = end;
        continue;
      }
      if (c === "'" && lex.charLiterals) {
        const m = /^'(?:\\(?:u\{[0-9a-fA-F]*\}|x[0-9a-fA-F]{2}|.)|[^\\'])'/.exec(line.slice(i));
        i += m ? m[0].length : 1; // a lifetime or label: just the quote
        continue;
      }
      const quote = lex.quotes.find((q) => line.startsWith(q, i));
      if (quote) {
        const end = findClose(line, i + quote.length, quote, true);
        if (end < 0) {
          open = { close: quote, kind: "string" };
          break;
        }
        i = end;
        continue;
      }
      if (openers.includes(c)) stack.push(level);
      i++;
    }
    level ??= inner(); // a line of closers only
    if (start === "code" && lex.clauseLine?.test(line.trim())) clause = level;
    if (start === "string") out.push(line);
    else if (start === "comment") out.push(commentLine(line, levelAtStart, unit));
    else out.push(line.trim() === "" ? "" : unit.repeat(level) + line);
  }
  return out;
}

function commentLine(line: string, depth: number, unit: string): string {
  if (line.trim() === "") return "";
  return unit.repeat(depth) + (line.startsWith("*") ? ` ${line}` : line);
}

/** Offset just past `close` at or after `from`, or -1; `escapes` skips backslash escapes. */
function findClose(line: string, from: number, close: string, escapes: boolean): number {
  for (let i = from; i < line.length; i++) {
    if (escapes && line[i] === "\\") {
      i++;
      continue;
    }
    if (line.startsWith(close, i)) return i + close.length;
  }
  return -1;
}

/**
 * The indentation unit a file uses: the most common step between a line and a deeper line after
 * it (tabs when that step is a tab), `fallback` when the file has no indented lines. Lines inside
 * block comments (` * …`) are left out: their one-space step is not the file's unit.
 */
export function detectIndentUnit(text: string, fallback: string): string {
  const counts = new Map<string, number>();
  let prev: string | null = null;
  for (const line of splitLines(text)) {
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("*")) continue;
    const ind = indentationOf(line);
    if (prev !== null && ind.length > prev.length && ind.startsWith(prev)) {
      const step = ind.slice(prev.length);
      const unit = step.includes("\t") ? "\t" : step;
      counts.set(unit, (counts.get(unit) ?? 0) + 1);
    }
    prev = ind;
  }
  let best = fallback;
  let n = 0;
  for (const [unit, c] of counts) {
    if (c > n) {
      best = unit;
      n = c;
    }
  }
  return best;
}
