import { stat } from "node:fs/promises";
import { z } from "zod";
import { probedAdapters } from "../../language-servers/index.js";
import { regexTimeoutMs, secondsText } from "../core/deadlines.js";
import { plural } from "../core/words.js";
import { walkFiles } from "../files/ignore.js";
import type { Project } from "../project/project.js";
import { compileGlob, type Glob, globMatches } from "../search/glob.js";
import { compileUserRegex, regexBounds, regexRunError, tooSlowAdvice } from "../search/regex-pattern.js";
import { RegexStopped, regexSpans } from "../search/regex-worker.js";
import type { CheckedPath } from "../security/sandbox.js";
import {
  decodeText,
  isBinary,
  lineStarts,
  positionAt,
  readProjectBytes,
  splitLines,
} from "../text/positions.js";
import { defineTool, readOnly } from "./kit/define.js";
import { maxAnswerChars, offsetParam } from "./kit/params.js";

/** The most matches listed in one answer (the rest are counted, and paged with `offset`). */
const maxListed = 2000;
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

const hitSchema = z.object({
  line: z.number().int().describe("1-based line where the match starts"),
  snippet: z
    .string()
    .describe("the matching line(s) with context_lines around, each prefixed with its number"),
});
/**
 * Matches grouped by file, the file named once: a search's hits cluster in few files (the path
 * was most of a match's JSON before, as it was for references).
 */
const fileMatchesSchema = z.object({
  relative_path: z.string(),
  hits: z.array(hitSchema).describe("the file's matching lines, in order"),
});
const output = {
  matches: z
    .array(fileMatchesSchema)
    .describe(
      "the matching lines from offset on, grouped by file (a page may end inside a file); the envelope's total counts all of them",
    ),
  files: z.number().int().describe("files with at least one match (all of them, not only the listed ones)"),
  complete: z
    .boolean()
    .optional()
    .describe(
      "false when the scan stopped early (time bound, cancelled): total and files count only the files scanned",
    ),
  incomplete_reason: z.string().optional(),
};
type Hit = z.infer<typeof hitSchema>;
type FileMatches = z.infer<typeof fileMatchesSchema>;

/** Paging counts matching lines, not files. */
const hitUnits = {
  count: (files: unknown[]) => (files as FileMatches[]).reduce((n, f) => n + f.hits.length, 0),
  take(files: unknown[], n: number): unknown[] {
    const out: FileMatches[] = [];
    let left = n;
    for (const f of files as FileMatches[]) {
      if (left <= 0) break;
      const hits = f.hits.slice(0, left);
      left -= hits.length;
      out.push(hits.length === f.hits.length ? f : { ...f, hits });
    }
    return out;
  },
};

export const searchForPatternTool = defineTool({
  name: "search_for_pattern",
  title: "Search text by regex",
  description:
    "Searches the text of project files for a JavaScript regular expression (flags g and m: ^ and $ match at line boundaries; '.' does not cross lines, use [\\s\\S] for that) and returns each matching line with its 1-based number and optional context. Skips ignored paths (.gitignore, node_modules, build output), binary files and secret files. For uses of a function, class or variable use find_referencing_symbols (it knows the code, not just the text); to find a declaration by name use find_symbol; to find files by name use find_file.",
  input: {
    pattern: z.string().min(1).describe("JavaScript regular expression"),
    relative_path: z
      .string()
      .default(".")
      .describe("File or directory to search, relative to the project root"),
    include_glob: z
      .string()
      .optional()
      .describe(
        "Only files matching this glob (on the relative path; a glob without '/' matches the base name)",
      ),
    exclude_glob: z
      .string()
      .optional()
      .describe("Skip files matching this glob (same rules as include_glob)"),
    context_lines: z
      .number()
      .int()
      .min(0)
      .max(50)
      .default(0)
      .describe("Lines of context before and after each match"),
    code_files_only: z.boolean().default(false).describe("Only search source code files (by extension)"),
    offset: offsetParam("matching lines"),
    max_answer_chars: maxAnswerChars,
  },
  output,
  paging: { items: "matches", noun: "match", limit: maxListed, units: hitUnits },
  annotations: readOnly,
  async run(args, ctx) {
    const project = ctx.project;
    const regex = compileUserRegex(
      args.pattern,
      "pattern",
      "Escape special characters such as ( [ { . * + ? with a backslash to match them literally.",
    );
    const start = project.sandbox.resolve(args.relative_path, { mustExist: true });
    const include = args.include_glob === undefined ? null : compileGlob(args.include_glob, "include_glob");
    const exclude = args.exclude_glob === undefined ? null : compileGlob(args.exclude_glob, "exclude_glob");
    const matches: FileMatches[] = [];
    // Every matching line is counted; only those in [offset, offset + maxListed) are listed.
    const from = args.offset;
    const to = from + maxListed;
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
        const hits = spans.slice(first, last).map((span) => snippetOf(lines, span, args.context_lines));
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
          regexBounds(ctx.signal),
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

    const chosen = filtered(candidates(project, start, ctx.signal), {
      include,
      exclude,
      code: args.code_files_only ? (rel: string) => isCodeFile(project, rel) : null,
      signal: ctx.signal,
    });
    for await (const file of chosen) {
      if (ctx.signal.aborted || Date.now() > deadline) {
        stopped =
          (await flush()) ??
          (ctx.signal.aborted
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
    return {
      matches,
      files,
      total,
      ...(stopped ? { complete: false, incomplete_reason: stopped } : {}),
    };
  },
  render(r) {
    const out: string[] = [];
    const total = r.total ?? hitUnits.count(r.matches);
    if (r.complete === false) out.push(`Incomplete: ${r.incomplete_reason}`);
    if (total === 0) {
      out.push("No matches.");
    } else {
      out.push(`${total} match${total === 1 ? "" : "es"} in ${plural(r.files, "file")}:`);
      for (const f of r.matches) {
        out.push(`${f.relative_path}`);
        f.hits.forEach((h, i) => {
          // With context, a separator where one match's lines end and the next one's begin.
          if (i > 0 && h.snippet.includes("\n")) out.push("  --");
          out.push(h.snippet === "" ? `  ${h.line}:` : h.snippet.replace(/^/gm, "  "));
        });
      }
    }
    return out.join("\n");
  },
  // Context goes first; then the wrapper lists whole matches up to the budget and names the next page.
  shrink: [
    (r) => ({
      ...r,
      matches: r.matches.map((f) => ({
        ...f,
        hits: f.hits.map((h) => ({ ...h, snippet: matchedLinesOnly(h) })),
      })),
    }),
  ],
  narrowHint:
    "Or narrow the search: a more specific pattern, a deeper relative_path, or include_glob/exclude_glob.",
});

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

function matchedLinesOnly(m: Hit): string {
  return m.snippet
    .split("\n")
    .filter((l) => Number.parseInt(l, 10) === m.line)
    .join("\n");
}
