/**
 * The one line model for project text: `\r\n`, `\n` and a lone `\r` each end a line, as in LSP.
 * Every line split, line-start table and line-ending guess in scalpel comes from here, so a
 * position computed in one place means the same line in every other (a lone-CR file once had
 * four different line counts across the code base).
 */

/** A file's line-ending style. A lone `\r` is the classic Mac style; LSP counts it as a line end. */
export type Eol = "\n" | "\r\n" | "\r";

/** Offsets where each line starts. */
export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 13 /* \r */) {
      if (text.charCodeAt(i + 1) === 10) i++;
      starts.push(i + 1);
    } else if (c === 10 /* \n */) {
      starts.push(i + 1);
    }
  }
  return starts;
}

/** The lines of `text` without their endings. A final line ending does not start another line. */
export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split(/\r\n|\n|\r/);
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/**
 * The lines of `text` without their endings, keeping a final empty line: `splitLines` for "what
 * the file shows", this for "every line a position can name" (its length is `lineStarts(text).length`).
 */
export function allLines(text: string): string[] {
  return text.split(/\r\n|\n|\r/);
}

/** The first line ending in the file; `\n` when there is none. */
export function detectEol(text: string): Eol {
  const m = /\r\n|\n|\r/.exec(text);
  return m ? (m[0] as Eol) : "\n";
}

/** Every line ending (`\r\n`, `\n` or a lone `\r`) becomes `eol`. */
export function convertEol(text: string, eol: Eol): string {
  return text.replace(/\r\n|\r|\n/g, eol);
}

/**
 * New text for a file with line endings `eol`: a bare `\n` (how callers and servers write line
 * breaks) becomes the file's ending; endings already in the file's style are left alone.
 */
export function matchEol(text: string, eol: Eol): string {
  if (eol === "\r\n") return text.replace(/(?<!\r)\n/g, "\r\n");
  if (eol === "\r") return text.replace(/\r?\n/g, "\r");
  return text;
}
