/**
 * Positions in fixture texts found by anchors (a unique piece of text), never by hard-coded line
 * numbers. Lines and columns are 1-based; columns count UTF-16 code units like LSP does. A leading
 * UTF-8 byte order mark is not part of the text (editors and language servers hide it).
 */

export interface Position {
  line: number;
  column: number;
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function positionAt(text: string, offset: number): Position {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/** Offsets of every occurrence of `needle` in `text`. */
function offsetsOf(text: string, needle: string): number[] {
  if (needle === "") throw new Error("anchors: empty needle");
  const out: number[] = [];
  let from = 0;
  for (;;) {
    const at = text.indexOf(needle, from);
    if (at < 0) return out;
    out.push(at);
    from = at + needle.length;
  }
}

/** Position of the `occurrence`-th (1-based) occurrence of `needle`; throws when there is none. */
export function position(text: string, needle: string, occurrence = 1): Position {
  const body = stripBom(text);
  const all = offsetsOf(body, needle);
  const at = all[occurrence - 1];
  if (at === undefined) {
    throw new Error(`anchors: ${JSON.stringify(needle)} occurs ${all.length} time(s), wanted #${occurrence}`);
  }
  return positionAt(body, at);
}

/** 1-based line of the `occurrence`-th occurrence of `needle`. */
export function lineOf(text: string, needle: string, occurrence = 1): number {
  return position(text, needle, occurrence).line;
}

/** 1-based line of the only occurrence of `needle`; throws when it is missing or not unique. */
export function uniqueLineOf(text: string, needle: string): number {
  const n = offsetsOf(stripBom(text), needle).length;
  if (n !== 1) throw new Error(`anchors: ${JSON.stringify(needle)} occurs ${n} times, expected exactly once`);
  return lineOf(text, needle);
}

/** Lines (1-based, ascending, without duplicates) that contain `needle`. */
export function linesOf(text: string, needle: string): number[] {
  const body = stripBom(text);
  const lines = offsetsOf(body, needle).map((o) => positionAt(body, o).line);
  return [...new Set(lines)];
}

/** Text of a 1-based line, without its line terminator. */
export function lineText(text: string, line: number): string {
  const l = stripBom(text).split("\n")[line - 1];
  if (l === undefined) throw new Error(`anchors: no line ${line}`);
  return l.replace(/\r$/, "");
}

/**
 * Every occurrence of `identifier` on the single line that contains `lineNeedle` (which must be
 * unique in the text). Used to name call sites: `sitesOn(text, "m.multiplyByRate(2)", "multiplyByRate")`.
 */
export function sitesOn(text: string, lineNeedle: string, identifier: string): Position[] {
  const line = uniqueLineOf(text, lineNeedle);
  const content = lineText(text, line);
  const cols = offsetsOf(content, identifier).map((o) => o + 1);
  if (cols.length === 0) throw new Error(`anchors: ${JSON.stringify(identifier)} not on line ${line}`);
  return cols.map((column) => ({ line, column }));
}

/** Number of occurrences of `needle` in `text`. */
export function countOf(text: string, needle: string): number {
  return offsetsOf(text, needle).length;
}
