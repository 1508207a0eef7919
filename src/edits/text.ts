/**
 * File text as language servers see it: BOM stripped, line endings kept, positions in UTF-16 code
 * units with 0-based lines. Tools convert to 1-based lines at their boundary, once.
 */
import { randomBytes } from "node:crypto";
import { chmod, lstat, readFile, realpath, rename, stat, unlink, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { Position, Range, TextEdit } from "vscode-languageserver-protocol";
import { AppError } from "../errors.js";

export type { Position, Range, TextEdit };
export type Eol = "\n" | "\r\n";

export interface TextFile {
  /** Content without the BOM, line endings as on disk. */
  text: string;
  bom: boolean;
  /** The first line ending in the file; `\n` when there is none. */
  eol: Eol;
}

/** Larger files are not text an agent should be editing through these tools. */
export const maxTextFileBytes = 16 * 1024 * 1024;

/** `display` names the file in messages (a project-relative path, never the host path). */
export async function readTextFile(abs: string, display = "the file"): Promise<TextFile> {
  let buf: Buffer;
  try {
    const st = await stat(abs);
    if (st.isDirectory()) {
      throw new AppError("invalid_argument", `'${display}' is a directory, not a file. Use list_dir.`);
    }
    if (st.size > maxTextFileBytes) {
      throw new AppError(
        "too_large",
        `'${display}' is ${Math.round(st.size / 1024 / 1024)} MiB, more than scalpel handles as text.`,
      );
    }
    buf = await readFile(abs);
  } catch (e) {
    if (e instanceof AppError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") {
      throw new AppError(
        "file_not_found",
        `'${display}' does not exist. Use find_file or list_dir to locate it.`,
      );
    }
    throw new AppError("internal", `Cannot read '${display}' (${code ?? "unknown error"}).`);
  }
  if (isBinary(buf)) {
    throw new AppError(
      "invalid_argument",
      `'${display}' is a binary file; only text files can be read or edited.`,
    );
  }
  return decodeText(buf);
}

export function decodeText(buf: Buffer): TextFile {
  const raw = buf.toString("utf8");
  const text = stripBom(raw);
  return { text, bom: text !== raw, eol: detectEol(text) };
}

export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

export function isBinary(buf: Buffer): boolean {
  const n = Math.min(buf.length, 8000);
  for (let i = 0; i < n; i++) if (buf[i] === 0) return true;
  return false;
}

export function detectEol(text: string): Eol {
  const i = text.indexOf("\n");
  return i > 0 && text[i - 1] === "\r" ? "\r\n" : "\n";
}

/** Every line ending (`\r\n`, `\n` or a lone `\r`) becomes `eol`. */
export function convertEol(text: string, eol: Eol): string {
  return text.replace(/\r\n|\r|\n/g, eol);
}

/** Lone `\n` become `\r\n` in CRLF files; text already in the file's style is unchanged. */
export function matchEol(text: string, eol: Eol): string {
  return eol === "\r\n" ? text.replace(/(?<!\r)\n/g, "\r\n") : text;
}

export interface WriteOptions {
  bom: boolean;
  /** When set, every line ending of `text` is converted to it. */
  eol?: Eol;
  /** Mode for a new file; an existing file keeps its own. */
  mode?: number;
}

/**
 * Writes via a temp file in the same directory and a rename, so readers never see half a file.
 * A symlink (already checked by the sandbox to stay inside the root) is written through, not replaced.
 */
export async function writeTextFileAtomic(abs: string, text: string, opts: WriteOptions): Promise<void> {
  let target = abs;
  try {
    if ((await lstat(abs)).isSymbolicLink()) target = await realpath(abs);
  } catch {
    // New file.
  }
  let mode = opts.mode;
  try {
    mode = (await stat(target)).mode & 0o7777;
  } catch {
    // New file: default mode unless one was given.
  }
  const body = (opts.bom ? "\uFEFF" : "") + (opts.eol ? convertEol(text, opts.eol) : text);
  const tmp = join(dirname(target), `.${basename(target)}.${randomBytes(4).toString("hex")}.scalpel-tmp`);
  try {
    await writeFile(tmp, body, { encoding: "utf8", flag: "wx" });
    if (mode !== undefined) await chmod(tmp, mode);
    await rename(tmp, target);
  } catch (e) {
    await unlink(tmp).catch(() => {});
    throw e;
  }
}

/** Offsets where each line starts. `\r\n`, `\n` and a lone `\r` end lines, as in LSP. */
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

export function indentationOf(line: string): string {
  return /^[ \t]*/.exec(line)?.[0] ?? "";
}

/**
 * Moves `body` to the indentation `indent`: its common leading indentation is removed, every
 * non-blank line gets `indent`, blank lines become empty, and line endings become `eol`.
 *
 * Bodies copied from a declaration's start column have an unindented first line and the rest at
 * their original depth. That shape is recognised when the body ends with a closing line (`}`, `)`,
 * `]`, `end`) indented like the rest's common indentation, i.e. level with the first line.
 */
export function reindent(body: string, indent: string, eol: string): string {
  const lines = body.split(/\r\n|\n|\r/);
  const nonBlank = lines.map((l, i) => ({ l, i })).filter(({ l }) => l.trim() !== "");
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

function commonIndent(lines: readonly string[]): string {
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
