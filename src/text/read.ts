/**
 * The one reader of project text. Every tool and the LSP document sync read files through
 * `readProjectText`, so size limits, binary detection, encodings, BOMs and line endings are decided
 * in one place. The exact bytes stay available next to the decoded text: the writer compares them
 * and the undo journal restores them.
 */
import { isUtf8 } from "node:buffer";
import { AppError } from "../core/errors.js";
import { detectEol, type Eol } from "./lines.js";
import { openForRead } from "./opened-path.js";

/**
 * UTF-16 is recognised by its BOM only: without one, a UTF-16 file is indistinguishable from binary
 * data (every ASCII character carries a NUL byte) and is treated as binary.
 */
export type Encoding = "utf8" | "utf16le" | "utf16be";

/** How text is turned back into bytes: the file's own encoding and whether it had a BOM. */
export interface TextFormat {
  encoding: Encoding;
  bom: boolean;
}

export interface TextFile extends TextFormat {
  /** Content without the BOM, line endings as on disk; UTF-16 positions (LSP's) index this. */
  text: string;
  /** The first line ending in the file; `\n` when there is none. */
  eol: Eol;
  /** The file's exact bytes. */
  bytes: Buffer;
  /**
   * Some bytes are not valid in the encoding (e.g. Latin-1 in a file read as UTF-8) and show as
   * U+FFFD: the text can be read, but writing it back would destroy those bytes, so edits refuse.
   */
  lossy: boolean;
  /** Permission bits of the file read (absent for text decoded from bytes in memory). */
  mode?: number;
}

/** Larger files are not text an agent should be editing through these tools. */
export const maxTextFileBytes = 16 * 1024 * 1024;

const bomUtf8 = Buffer.from([0xef, 0xbb, 0xbf]);
const bomUtf16le = Buffer.from([0xff, 0xfe]);
const bomUtf16be = Buffer.from([0xfe, 0xff]);

function startsWith(buf: Buffer, prefix: Buffer): boolean {
  return buf.length >= prefix.length && buf.subarray(0, prefix.length).equals(prefix);
}

function utf16Bom(buf: Buffer): Encoding | null {
  if (startsWith(buf, bomUtf16le)) return "utf16le";
  if (startsWith(buf, bomUtf16be)) return "utf16be";
  return null;
}

/** A NUL byte in the first 8000 bytes means binary, unless a UTF-16 BOM says what the NULs are. */
export function isBinary(buf: Buffer): boolean {
  if (utf16Bom(buf) !== null) return false;
  const n = Math.min(buf.length, 8000);
  for (let i = 0; i < n; i++) if (buf[i] === 0) return true;
  return false;
}

function swap16(buf: Buffer): Buffer {
  const copy = Buffer.from(buf.subarray(0, buf.length - (buf.length % 2)));
  return copy.swap16();
}

/** Decodes a file's bytes (already known not to be binary). */
export function decodeText(buf: Buffer): TextFile {
  const wide = utf16Bom(buf);
  let text: string;
  let format: TextFormat;
  let lossy = false;
  if (wide !== null) {
    const body = buf.subarray(2);
    // An odd trailing byte cannot be a UTF-16 code unit. Lone surrogates are kept as they are: a JS
    // string holds them, so the text still round-trips.
    lossy = body.length % 2 !== 0;
    text = (wide === "utf16le" ? body : swap16(body)).toString("utf16le");
    format = { encoding: wide, bom: true };
  } else {
    const bom = startsWith(buf, bomUtf8);
    const body = bom ? buf.subarray(3) : buf;
    lossy = !isUtf8(body);
    text = body.toString("utf8");
    format = { encoding: "utf8", bom };
  }
  return { ...format, text, eol: detectEol(text), bytes: buf, lossy };
}

/** The bytes for `text` in `format`, BOM included. */
export function encodeText(text: string, format: TextFormat): Buffer {
  switch (format.encoding) {
    case "utf16le":
      return Buffer.concat([bomUtf16le, Buffer.from(text, "utf16le")]);
    case "utf16be":
      return Buffer.concat([bomUtf16be, Buffer.from(text, "utf16le").swap16()]);
    default: {
      const body = Buffer.from(text, "utf8");
      return format.bom ? Buffer.concat([bomUtf8, body]) : body;
    }
  }
}

/**
 * Whether `encodeText(text, format)` keeps every character: UTF-8 cannot hold a lone surrogate
 * (half of an emoji, say, left by an edit that split it), Node would write U+FFFD instead.
 */
export function encodable(text: string, format: TextFormat): boolean {
  // With the `u` flag a surrogate pair is one code point, so only a lone half matches.
  return format.encoding !== "utf8" || !/[\uD800-\uDFFF]/u.test(text);
}

export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * Reads a project file as text. `display` names the file in messages (a project-relative path,
 * never the host path). Directories, missing files, binary files and files over the size limit are
 * AppErrors that say what to do instead. The file is opened by `openForRead`: no final link is
 * followed unchecked, only a regular file with one name is read, and what was really opened is
 * judged by the project's gate.
 */
export async function readProjectText(abs: string, display = "the file"): Promise<TextFile> {
  const buf = await readProjectBytes(abs, display);
  if (isBinary(buf.bytes)) {
    throw new AppError(
      "invalid_argument",
      `'${display}' is a binary file; only text files can be read or edited.`,
    );
  }
  return { ...decodeText(buf.bytes), mode: buf.mode };
}

/**
 * The exact bytes of a project file (size-limited) and its permission bits, opened the same
 * guarded way; for callers that decide about binary content themselves (search).
 */
export async function readProjectBytes(
  abs: string,
  display = "the file",
  limit = maxTextFileBytes,
): Promise<{ bytes: Buffer; mode: number }> {
  const { handle, stat } = await openForRead(abs, display);
  try {
    if (stat.size > limit) {
      throw new AppError(
        "too_large",
        `'${display}' is ${Math.round(stat.size / 1024 / 1024)} MiB, more than scalpel handles as text.`,
      );
    }
    return { bytes: await handle.readFile(), mode: stat.mode & 0o7777 };
  } catch (e) {
    if (e instanceof AppError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new AppError("internal", `Cannot read '${display}' (${code ?? "unknown error"}).`);
  } finally {
    await handle.close();
  }
}

/** Refuses to change a file whose bytes the text does not represent exactly. */
export function assertEditable(file: Pick<TextFile, "lossy" | "encoding">, display: string): void {
  if (file.lossy) {
    const what = file.encoding === "utf8" ? "is not valid UTF-8" : "has an odd number of bytes for UTF-16";
    throw new AppError(
      "unsupported_encoding",
      `'${display}' ${what}; scalpel would corrupt the bytes it cannot decode, so it does not edit this file. Convert it to UTF-8 (or UTF-16 with a BOM) first, or edit it with another tool.`,
    );
  }
}
