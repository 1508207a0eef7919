/**
 * Positions and text edits on file text as language servers see it: BOM stripped, line endings
 * kept, positions in UTF-16 code units with 0-based lines. Tools convert to 1-based lines at their
 * boundary, once. Reading, decoding and the line model live in `src/text/` (shared with `lsp/`);
 * they are re-exported here for the edit and tool code.
 */
import type { Position, Range, TextEdit } from "vscode-languageserver-protocol";
import { AppError } from "../core/errors.js";
import { convertEol, type Eol, lineStarts } from "./lines.js";
import { encodeText, type TextFormat } from "./read.js";
import { writeFileAtomic } from "./write.js";

export {
  allLines,
  convertEol,
  detectEol,
  type Eol,
  lineStarts,
  matchEol,
  splitLines,
} from "./lines.js";
export {
  assertEditable,
  decodeText,
  type Encoding,
  encodable,
  encodeText,
  isBinary,
  maxTextFileBytes,
  readProjectBytes,
  readProjectText as readTextFile,
  stripBom,
  type TextFile,
  type TextFormat,
} from "./read.js";
export type { Position, Range, TextEdit };

export interface WriteOptions extends Partial<TextFormat> {
  bom: boolean;
  /** When set, every line ending of `text` is converted to it. */
  eol?: Eol;
  /** Mode for a new file; an existing file keeps its own. */
  mode?: number;
}

/** Encodes `text` (UTF-8 unless told otherwise) and replaces the file atomically. */
export async function writeTextFileAtomic(abs: string, text: string, opts: WriteOptions): Promise<void> {
  const body = opts.eol ? convertEol(text, opts.eol) : text;
  const bytes = encodeText(body, { encoding: opts.encoding ?? "utf8", bom: opts.bom });
  await writeFileAtomic(abs, bytes, opts.mode);
}

/** Offset of the end of line `line`'s content (before its line ending). */
function lineContentEnd(text: string, starts: readonly number[], line: number): number {
  const next = starts[line + 1];
  if (next === undefined) return text.length; // the last line has no ending
  let end = next;
  if (text.charCodeAt(end - 1) === 10) end--;
  if (text.charCodeAt(end - 1) === 13) end--;
  return end;
}

/**
 * Offset of an LSP position. As LSP prescribes, a character past the end of its line means the end
 * of the line; a line past the last one means the end of the text. Use `checkPosition` to refuse
 * those instead.
 */
export function offsetAt(text: string, pos: Position, starts: readonly number[] = lineStarts(text)): number {
  if (pos.line < 0) return 0;
  if (pos.line >= starts.length) return text.length;
  const start = starts[pos.line] ?? 0;
  const end = lineContentEnd(text, starts, pos.line);
  return Math.min(start + Math.max(0, pos.character), end);
}

export function positionAt(
  text: string,
  offset: number,
  starts: readonly number[] = lineStarts(text),
): Position {
  const o = Math.max(0, Math.min(offset, text.length));
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] ?? 0) <= o) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo, character: o - (starts[lo] ?? 0) };
}

/**
 * A description of what is wrong with the position, or null. The position just past the last line
 * (`{line: lineCount, character: 0}`) is accepted: servers use it for "end of document".
 */
export function checkPosition(pos: Position, starts: readonly number[], textLength: number): string | null {
  if (!Number.isInteger(pos.line) || !Number.isInteger(pos.character) || pos.line < 0 || pos.character < 0) {
    return `invalid position ${pos.line}:${pos.character}`;
  }
  if (pos.line < starts.length) return null;
  const lastStart = starts[starts.length - 1] ?? 0;
  if (pos.line === starts.length && pos.character === 0 && lastStart === textLength) return null;
  return `line ${pos.line + 1} is past the end of the file (${starts.length} lines)`;
}

interface OffsetEdit {
  start: number;
  end: number;
  newText: string;
  index: number;
}

/**
 * Applies edits that were all computed against `text` (LSP semantics). Overlapping ranges are an
 * `edit_conflict`; inserts at the same offset keep their given order.
 */
export function applyTextEdits(text: string, edits: readonly TextEdit[], display = "the file"): string {
  const starts = lineStarts(text);
  const resolved: OffsetEdit[] = edits.map((e, index) => {
    const problem =
      checkPosition(e.range.start, starts, text.length) ?? checkPosition(e.range.end, starts, text.length);
    if (problem) {
      throw new AppError(
        "edit_conflict",
        `An edit for '${display}' is out of range (${problem}); the file probably changed. Re-read it and retry.`,
      );
    }
    const start = offsetAt(text, e.range.start, starts);
    const end = offsetAt(text, e.range.end, starts);
    if (end < start) {
      throw new AppError("edit_conflict", `An edit for '${display}' has its end before its start.`);
    }
    return { start, end, newText: e.newText, index };
  });
  resolved.sort((a, b) => a.start - b.start || a.end - b.end || a.index - b.index);
  const out: string[] = [];
  let cursor = 0;
  for (const e of resolved) {
    if (e.start < cursor) {
      const at = positionAt(text, e.start, starts);
      throw new AppError(
        "edit_conflict",
        `Two edits for '${display}' overlap near line ${at.line + 1}; nothing was changed.`,
      );
    }
    out.push(text.slice(cursor, e.start), e.newText);
    cursor = e.end;
  }
  out.push(text.slice(cursor));
  return out.join("");
}
