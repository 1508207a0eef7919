/**
 * A caller's regular expression over the project's text files: the files chosen (a path, globs,
 * code files only), read safely, matched in the regex worker in batches, every matching line
 * counted and one page of them kept with its context. Bounded by time; says where it stopped.
 */
import { stat } from "node:fs/promises";
import { probedAdapters } from "../../language-servers/index.js";
import { regexTimeoutMs, secondsText } from "../core/deadlines.js";
import { plural } from "../core/words.js";
import { walkFiles } from "../files/ignore.js";
import type { Project } from "../project/project.js";
import type { CheckedPath } from "../security/sandbox.js";
import {
  decodeText,
  isBinary,
  lineStarts,
  positionAt,
  readProjectBytes,
  splitLines,
} from "../text/positions.js";
import { type Glob, globMatches } from "./glob.js";
import { regexBounds, regexRunError, tooSlowAdvice } from "./regex-pattern.js";
import { RegexStopped, regexSpans } from "./regex-worker.js";

/**
 * The scan itself is bounded by time, not by a match count: counting past the listed page is
 * cheap, and a total cut at a count would be a wrong total. Over the bound the answer says
 * `complete: false` and how far it got.
 */
const scanMillis = 30_000;
const maxFileBytes = 4 * 1024 * 1024;
/** Minified bundles would otherwise fill the budget with one line. */
const maxSnippetLineChars = 400;
/**
 * Files go to the regex worker in batches of this many characters or files: one round trip costs
 * ~0.15 ms, which on a tree of small files would double the time of the scan.
 */
const batchChars = 1024 * 1024;
const batchFiles = 64;

/**
 * Source files of languages no built-in adapter serves, commonly kept next to those that one does
 * (the adapters' own `extensions` and `otherSourceExtensions` join them below; a test holds that
 * this list repeats none of them).
 */
export const otherCodeExtensions: readonly string[] = (
  "java kt kts scala swift c h cc cpp cxx hpp hh cs fs rb php " +
  "lua pl r m mm vue svelte astro ex exs erl hs ml mli clj cljs groovy gradle sh bash zsh ps1 sql zig nim jl"
)
  .split(" ")
  .map((e) => `.${e}`);

/** What `code_files_only` keeps, besides the files the project's own language servers serve. */
const codeExtensions: ReadonlySet<string> = new Set([
  ...probedAdapters.flatMap((a) => [...a.extensions, ...(a.otherSourceExtensions ?? [])]),
  ...otherCodeExtensions,
]);

/** One matching line: its 1-based number and the numbered lines around it. */
export interface Hit {
  line: number;
  snippet: string;
}

/** A file's matching lines, in order. */
export interface FileMatches {
  relative_path: string;
  hits: Hit[];
}

export interface TextSearch {
  include: Glob | null;
  exclude: Glob | null;
  codeFilesOnly: boolean;
  contextLines: number;
  /** Matching lines of the whole answer skipped before the page. */
  offset: number;
  /** Matching lines kept on the page (every one is counted). */
  limit: number;
  signal: AbortSignal;
}

export interface TextSearchResult {
  matches: FileMatches[];
  /** Files with at least one match. */
  files: number;
  /** Matching lines in all. */
  total: number;
  /** Why the scan stopped early; the counts cover the files before it. */
  stopped?: string;
}

export async function searchText(
  project: Project,
  regex: RegExp,
  start: CheckedPath,
  opts: TextSearch,
): Promise<TextSearchResult> {
  const matches: FileMatches[] = [];
  // Every matching line is counted; only those in [offset, offset + maxListed) are listed.
  const from = opts.offset;
  const to = from + opts.limit;
  let total = 0;
  let files = 0;
  let stopped: string | undefined;
  const deadline = Date.now() + scanMillis;
  const cancelled = (at: string) =>
    `the scan stopped at ${at} after the call was cancelled; total and files count the files before it (narrow relative_path or include_glob)`;

  const count = (rel: string, text: string, found: Int32Array) => {
    const spans = matchingLines(text, found);
    if (spans.length === 0) return;
    files++;
    const first = Math.max(0, from - total);
    const last = Math.min(spans.length, to - total);
    if (first < last) {
      const lines = splitLines(text);
      const hits = spans.slice(first, last).map((span) => snippetOf(lines, span, opts.contextLines));
      matches.push({ relative_path: rel, hits });
    }
    total += spans.length;
  };
  // The pattern runs in a worker bounded by SCALPEL_REGEX_TIMEOUT (regex-worker.ts); files are
  // counted in walk order, batch after batch, so pages stay stable.
  let batch: Array<{ rel: string; text: string }> = [];
  let batched = 0;
  const flush = async (): Promise<string | undefined> => {
    const sent = batch;
    batch = [];
    batched = 0;
    if (sent.length === 0) return undefined;
    let found: Int32Array[];
    try {
      found = await regexSpans(
        regex,
        sent.map((f) => f.text),
        regexBounds(opts.signal),
      );
    } catch (e) {
      const at = sent[0]!.rel;
      if (e instanceof RegexStopped && e.why === "cancelled") return cancelled(at);
      if (e instanceof RegexStopped && e.why === "timeout") {
        const others =
          sent.length > 1 ? ` (or one of the ${plural(sent.length - 1, "file")} searched with it)` : "";
        return `the pattern ran longer than ${secondsText(regexTimeoutMs())} on ${at}${others} and was stopped; total and files count the files before it. ${tooSlowAdvice()}`;
      }
      throw regexRunError(e, at, "pattern");
    }
    for (const [i, f] of sent.entries()) count(f.rel, f.text, found[i] ?? new Int32Array(0));
    return undefined;
  };

  const chosen = filtered(candidates(project, start, opts.signal), {
    include: opts.include,
    exclude: opts.exclude,
    code: opts.codeFilesOnly ? (rel: string) => isCodeFile(project, rel) : null,
    signal: opts.signal,
  });
  for await (const file of chosen) {
    if (opts.signal.aborted || Date.now() > deadline) {
      stopped =
        (await flush()) ??
        (opts.signal.aborted
          ? cancelled(file.rel)
          : `the scan stopped at ${file.rel} after ${scanMillis / 1000} s; total and files count the files before it (narrow relative_path or include_glob)`);
      break;
    }
    const text = await readSearchable(file.abs);
    if (text === null) continue;
    batch.push({ rel: file.rel, text });
    batched += text.length;
    if (batched >= batchChars || batch.length >= batchFiles) {
      stopped = await flush();
      if (stopped) break;
    }
  }
  stopped ??= await flush();
  return { matches, files, total, ...(stopped ? { stopped } : {}) };
}

/** Paths go to the glob matcher (in the regex worker) this many at a time. */
const globBatch = 512;

/** The candidates that pass include_glob, exclude_glob and code_files_only, in walk order. */
async function* filtered(
  files: AsyncIterable<CheckedPath>,
  opts: {
    include: Glob | null;
    exclude: Glob | null;
    /** With code_files_only: which files are code. */
    code: ((rel: string) => boolean) | null;
    signal: AbortSignal;
  },
): AsyncIterable<CheckedPath> {
  const pass = async (batch: CheckedPath[]): Promise<CheckedPath[]> => {
    const { code } = opts;
    const chosen = code ? batch.filter((f) => code(f.rel)) : batch;
    const rels = chosen.map((f) => f.rel);
    const included = opts.include ? await globMatches(opts.include, rels, opts.signal) : null;
    const excluded = opts.exclude ? await globMatches(opts.exclude, rels, opts.signal) : null;
    return chosen.filter((_, i) => (included ? included[i] : true) && !excluded?.[i]);
  };
  let batch: CheckedPath[] = [];
  for await (const file of files) {
    batch.push(file);
    if (batch.length < globBatch) continue;
    yield* await pass(batch);
    batch = [];
  }
  yield* await pass(batch);
}

/** A language server of the project serves it (declared servers too), or its extension is code. */
function isCodeFile(project: Project, rel: string): boolean {
  const name = rel.slice(rel.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return false;
  return codeExtensions.has(name.slice(dot).toLowerCase()) || project.pool.adapterForPath(rel) !== null;
}

/** The files to search: the one named, or the non-ignored, non-secret files under a directory. */
async function* candidates(
  project: Project,
  start: CheckedPath,
  signal: AbortSignal,
): AsyncIterable<CheckedPath> {
  const startIsDir = start.rel === "." || (await isDirectory(start));
  if (!startIsDir) {
    yield start;
    return;
  }
  // Naming an ignored directory is asking to search it.
  const skipIgnored = !project.ignore.isIgnored(start.rel, true);
  // Secret files get no checked path, so the walk skips them by construction.
  const mint = project.sandbox.walker(start);
  for await (const entry of walkFiles(project.root, start.rel, project.ignore, { skipIgnored, signal })) {
    if (entry.isDir) continue;
    const checked = mint(entry.rel);
    if (checked) yield checked;
  }
}

async function isDirectory(path: CheckedPath): Promise<boolean> {
  try {
    return (await stat(path.abs)).isDirectory();
  } catch {
    return false;
  }
}

async function readSearchable(abs: string): Promise<string | null> {
  try {
    // The guarded open: a link swapped since the walk checked it cannot redirect the read.
    const { bytes: buf } = await readProjectBytes(abs, "file", maxFileBytes);
    if (isBinary(buf)) return null;
    return decodeText(buf).text;
  } catch {
    return null;
  }
}

/** The 0-based first and last line of a match; one per line on which a match starts. */
interface Span {
  from: number;
  to: number;
}

/**
 * The lines on which a match starts (what is counted), without building any snippet. `found` holds
 * the matches as `[index, length, …]` pairs (`regexSpans`).
 */
export function matchingLines(text: string, found: Int32Array): Span[] {
  const out: Span[] = [];
  const starts = lineStarts(text);
  const lineCount = splitLines(text).length;
  let lastLine = -1;
  for (let i = 0; i + 1 < found.length; i += 2) {
    const index = found[i]!;
    const length = found[i + 1]!;
    const from = positionAt(text, index, starts).line;
    // A match at the very end of a file that ends with a line break is on no line.
    if (from === lastLine || from >= lineCount) continue;
    lastLine = from;
    const endOffset = index + Math.max(0, length - 1);
    out.push({ from, to: Math.max(from, positionAt(text, endOffset, starts).line) });
  }
  return out;
}

function snippetOf(lines: readonly string[], span: Span, context: number): { line: number; snippet: string } {
  return { line: span.from + 1, snippet: numbered(lines, span.from - context, span.to + context) };
}

function numbered(lines: readonly string[], from0: number, to0: number): string {
  const from = Math.max(0, from0);
  const to = Math.min(lines.length - 1, to0);
  const width = String(to + 1).length;
  const out: string[] = [];
  for (let l = from; l <= to; l++) {
    const text = lines[l] ?? "";
    const shown =
      text.length > maxSnippetLineChars
        ? `${text.slice(0, maxSnippetLineChars)}… (+${text.length - maxSnippetLineChars} chars)`
        : text;
    out.push(`${String(l + 1).padStart(width)}: ${shown}`);
  }
  return out.join("\n");
}
