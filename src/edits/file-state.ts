/**
 * A file as the writer holds it while a plan runs: the exact bytes and text on disk when the plan
 * started, the text the plan has made of it so far, and the bytes it will hold.
 */
import { AppError } from "../core/errors.js";
import type { CheckedPath } from "../security/sandbox.js";
import type { Eol } from "../text/lines.js";
import { encodeText, readProjectText, type TextFormat } from "../text/read.js";
import type { KnownFile } from "./plan.js";

export interface FileState {
  path: CheckedPath;
  /** Exact bytes on disk when the plan started; null = missing. */
  originalBytes: Buffer | null;
  /** Decoded text on disk when the plan started; null = missing. */
  original: string | null;
  originalFormat: TextFormat;
  current: string | null;
  format: TextFormat;
  eol: Eol;
  /** `current` does not represent its bytes exactly (see TextFile.lossy). */
  lossy: boolean;
  /** Exact bytes to write instead of encoding `current` (set by a restore). */
  raw?: Buffer | null;
  mode?: number;
}

/** Files read at once ahead of the plan: enough to keep the thread pool busy, few descriptors. */
const readAheadWidth = 8;

/**
 * Starts reading the plan's files, several at once (touch point of the references/rename speed
 * work, #11): read one after another inside the plan's loop, the 1,000 files of a rename on the
 * bench's generated 1k project took most of a 0.3–1.7 s dry run. The plan's loop still takes the
 * states in its own order (the diff's order); a failed read ahead yields undefined.
 */
export function readAhead(paths: readonly CheckedPath[]): Map<string, Promise<FileState | undefined>> {
  const ahead = new Map<string, Promise<FileState | undefined>>();
  let free = readAheadWidth;
  const waiting: Array<() => void> = [];
  const take = (): Promise<void> => {
    if (free === 0) return new Promise((r) => waiting.push(r));
    free--;
    return Promise.resolve();
  };
  const give = () => {
    const next = waiting.shift();
    if (next) next();
    else free++;
  };
  for (const path of paths) {
    if (ahead.has(path.abs)) continue;
    const read = take()
      .then(() => loadState(path))
      .then(
        (st) => st,
        () => undefined,
      )
      .finally(give);
    ahead.set(path.abs, read);
  }
  return ahead;
}

export function setText(st: FileState, text: string | null): void {
  st.current = text;
  delete st.raw;
}

/** The bytes the file will hold: unchanged text keeps its exact original bytes. */
export function bytesOf(st: FileState): Buffer | null {
  if (st.current === null) return null;
  if (st.raw !== undefined) return st.raw;
  if (
    st.originalBytes !== null &&
    st.current === st.original &&
    st.format.encoding === st.originalFormat.encoding &&
    st.format.bom === st.originalFormat.bom
  ) {
    return st.originalBytes;
  }
  return encodeText(st.current, st.format);
}

export function sameBytes(a: Buffer | null, b: Buffer | null): boolean {
  return a === null || b === null ? a === b : a.equals(b);
}

/**
 * The state of a file from what a watched cache holds, without reading it (a dry run's preview, see
 * EditFileOp.known): its bytes are its text encoded, which decoding kept exactly (not lossy).
 */
export function knownState(path: CheckedPath, known: KnownFile): FileState {
  const format = { encoding: known.encoding, bom: known.bom };
  const state: FileState = {
    path,
    originalBytes: encodeText(known.text, format),
    original: known.text,
    originalFormat: format,
    current: known.text,
    format,
    eol: known.eol,
    lossy: false,
  };
  if (known.mode !== undefined) state.mode = known.mode;
  return state;
}

export async function loadState(path: CheckedPath): Promise<FileState> {
  try {
    const file = await readProjectText(path.abs, path.rel);
    const format = { encoding: file.encoding, bom: file.bom };
    const state: FileState = {
      path,
      originalBytes: file.bytes,
      original: file.text,
      originalFormat: format,
      current: file.text,
      format,
      eol: file.eol,
      lossy: file.lossy,
    };
    // The mode of the file that was read (the reader's fstat), kept by the write.
    if (file.mode !== undefined) state.mode = file.mode;
    return state;
  } catch (e) {
    if (e instanceof AppError && e.code === "file_not_found") {
      const format: TextFormat = { encoding: "utf8", bom: false };
      return {
        path,
        originalBytes: null,
        original: null,
        originalFormat: format,
        current: null,
        format,
        eol: "\n",
        lossy: false,
      };
    }
    throw e;
  }
}

export function notFound(rel: string): AppError {
  return new AppError("file_not_found", `'${rel}' does not exist. Use find_file or list_dir to locate it.`);
}

/** `details.reason: "stale"` tells a tool it may recompute its edit on the new text and retry. */
export function stale(rel: string): AppError {
  return new AppError(
    "edit_conflict",
    `'${rel}' changed on disk since it was read; nothing was written. Re-read the file (or run the tool again) and retry.`,
    { reason: "stale", relative_path: rel },
  );
}

/** True for the edit_conflict of a file that changed after the edit was computed. */
export function isStaleConflict(e: unknown): boolean {
  return e instanceof AppError && e.code === "edit_conflict" && e.details?.reason === "stale";
}

export function checkExpected(st: FileState, expected: string | undefined, rel: string): void {
  if (expected !== undefined && st.current !== expected) throw stale(rel);
}
