import { z } from "zod";
import { plural } from "../core/words.js";
import { compileGlob } from "../search/glob.js";
import { compileUserRegex } from "../search/regex-pattern.js";
import { type FileMatches, type Hit, searchText } from "../search/text-search.js";
import { defineTool, readOnly } from "./kit/define.js";
import { maxAnswerChars, offset } from "./kit/params.js";

/** The most matches listed in one answer (the rest are counted, and paged with `offset`). */
const maxListed = 2000;

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
    "Regex search over project text (not ignored, binary or secret files): lines with context. Uses of code: find_referencing_symbols.",
  input: {
    pattern: z.string().min(1).describe("JavaScript regex, flags g and m"),
    relative_path: z.string().default("."),
    include_glob: z.string().optional().describe("on the path; without '/' on the base name"),
    exclude_glob: z.string().optional(),
    context_lines: z.number().int().min(0).max(50).default(0),
    code_files_only: z.boolean().default(false),
    offset,
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
    const found = await searchText(project, regex, start, {
      include,
      exclude,
      codeFilesOnly: args.code_files_only,
      contextLines: args.context_lines,
      offset: args.offset,
      limit: maxListed,
      signal: ctx.signal,
    });
    return {
      matches: found.matches,
      files: found.files,
      total: found.total,
      ...(found.stopped ? { complete: false, incomplete_reason: found.stopped } : {}),
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

function matchedLinesOnly(m: Hit): string {
  return m.snippet
    .split("\n")
    .filter((l) => Number.parseInt(l, 10) === m.line)
    .join("\n");
}
