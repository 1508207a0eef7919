import { readFile, stat } from "node:fs/promises";
import picomatch from "picomatch";
import { z } from "zod";
import { decodeText, isBinary, lineStarts, positionAt, splitLines } from "../edits/text.js";
import { AppError } from "../errors.js";
import { walkFiles } from "../project/ignore.js";
import type { Project } from "../project/project.js";
import type { CheckedPath } from "../security/sandbox.js";
import { maxAnswerChars, plural } from "./common.js";
import type { Answer } from "./envelope.js";
import { defineTool, readOnly } from "./tool.js";

/** Bounds on the work one search does; over them the result says it stopped. */
const maxMatches = 2000;
const maxFileBytes = 4 * 1024 * 1024;
/** Minified bundles would otherwise fill the budget with one line. */
const maxSnippetLineChars = 400;

/** Source files of the languages people commonly keep next to each other. */
const codeExtensions = new Set(
  (
    "ts tsx mts cts js jsx mjs cjs rs dart py pyi go java kt kts scala swift c h cc cpp cxx hpp hh cs fs rb php " +
    "lua pl r m mm vue svelte astro ex exs erl hs ml mli clj cljs groovy gradle sh bash zsh ps1 sql zig nim jl"
  ).split(" "),
);

const matchSchema = z.object({
  relative_path: z.string(),
  line: z.number().int().describe("1-based line where the match starts"),
  snippet: z
    .string()
    .describe("the matching line(s) with context_lines around, each prefixed with its number"),
});
const output = {
  matches: z.array(matchSchema),
  file_counts: z
    .array(z.object({ relative_path: z.string(), matches: z.number().int() }))
    .optional()
    .describe("matches per file, given instead of the matches when they do not fit"),
};
type SearchResult = Answer<typeof output>;
type Match = z.infer<typeof matchSchema>;

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
    max_answer_chars: maxAnswerChars,
  },
  output,
  annotations: readOnly,
  async run(args, ctx) {
    const project = ctx.project;
    const regex = compileRegex(args.pattern);
    const start = project.sandbox.resolve(args.relative_path, { mustExist: true });
    const include = args.include_glob === undefined ? null : compileGlob(args.include_glob, "include_glob");
    const exclude = args.exclude_glob === undefined ? null : compileGlob(args.exclude_glob, "exclude_glob");
    const matches: Match[] = [];
    const result: SearchResult = { matches };

    for await (const file of candidates(project, start, ctx.signal)) {
      if (include && !include(file.rel)) continue;
      if (exclude?.(file.rel)) continue;
      if (args.code_files_only && !isCodeFile(file.rel)) continue;
      const text = await readSearchable(file.abs);
      if (text === null) continue;
      for (const m of searchText(text, regex, args.context_lines)) {
        if (matches.length >= maxMatches) {
          result.truncated = true;
          result.hint = `Stopped after ${maxMatches} matches; use a more specific pattern, relative_path or include_glob.`;
          return result;
        }
        matches.push({ relative_path: file.rel, ...m });
      }
      if (ctx.signal.aborted) break;
    }
    return result;
  },
  render(r) {
    const out: string[] = [];
    if (r.file_counts) {
      const total = r.file_counts.reduce((n, f) => n + f.matches, 0);
      out.push(`${total} match${total === 1 ? "" : "es"} in ${plural(r.file_counts.length, "file")}:`);
      for (const f of r.file_counts) out.push(`  ${f.relative_path}: ${f.matches}`);
    } else if (r.matches.length === 0) {
      out.push("No matches.");
    } else {
      for (const m of r.matches) {
        out.push(
          m.snippet === "" ? `${m.relative_path}:${m.line}` : `${m.relative_path}:${m.line}\n${m.snippet}`,
        );
      }
    }
    return out.join("\n");
  },
  shrink: [
    (r) => ({ ...r, matches: r.matches.map((m) => ({ ...m, snippet: matchedLinesOnly(m) })) }),
    (r) => ({ ...r, matches: r.matches.map((m) => ({ ...m, snippet: "" })) }),
    (r) => ({ ...r, matches: [], file_counts: countsOf(r.matches) }),
  ],
  narrowHint:
    "Narrow the search: a more specific pattern, a deeper relative_path, include_glob/exclude_glob, or fewer context_lines.",
});

function compileRegex(pattern: string): RegExp {
  try {
    return new RegExp(pattern, "gm");
  } catch (e) {
    throw new AppError(
      "invalid_regex",
      `The pattern is not a valid JavaScript regular expression: ${(e as Error).message}. Escape special characters such as ( [ { . * + ? with a backslash to match them literally.`,
    );
  }
}

/** A glob with '/' is matched against the project-relative path, one without against the base name. */
function compileGlob(glob: string, param: string): (rel: string) => boolean {
  try {
    const isMatch = picomatch(glob, { dot: true });
    if (glob.includes("/")) return (rel) => isMatch(rel);
    return (rel) => isMatch(rel.slice(rel.lastIndexOf("/") + 1));
  } catch (e) {
    throw new AppError("invalid_argument", `${param} '${glob}' is not a valid glob: ${(e as Error).message}`);
  }
}

function isCodeFile(rel: string): boolean {
  const name = rel.slice(rel.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return dot > 0 && codeExtensions.has(name.slice(dot + 1).toLowerCase());
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
    const buf = await readFile(abs);
    if (buf.length > maxFileBytes || isBinary(buf)) return null;
    return decodeText(buf).text;
  } catch {
    return null;
  }
}

/** One entry per line on which a match starts. */
export function searchText(
  text: string,
  regex: RegExp,
  context: number,
): Array<{ line: number; snippet: string }> {
  const out: Array<{ line: number; snippet: string }> = [];
  const starts = lineStarts(text);
  const lines = splitLines(text);
  let lastLine = -1;
  regex.lastIndex = 0;
  for (const m of text.matchAll(regex)) {
    const from = positionAt(text, m.index, starts).line;
    // A match at the very end of a file that ends with a line break is on no line.
    if (from === lastLine || from >= lines.length) continue;
    lastLine = from;
    const endOffset = m.index + Math.max(0, m[0].length - 1);
    const to = Math.max(from, positionAt(text, endOffset, starts).line);
    out.push({ line: from + 1, snippet: numbered(lines, from - context, to + context) });
  }
  return out;
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

function matchedLinesOnly(m: Match): string {
  return m.snippet
    .split("\n")
    .filter((l) => Number.parseInt(l, 10) === m.line)
    .join("\n");
}

function countsOf(matches: readonly Match[]): Array<{ relative_path: string; matches: number }> {
  const counts = new Map<string, number>();
  for (const m of matches) counts.set(m.relative_path, (counts.get(m.relative_path) ?? 0) + 1);
  return [...counts].map(([relative_path, n]) => ({ relative_path, matches: n }));
}
