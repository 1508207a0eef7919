import { z } from "zod";
import { AppError } from "../core/errors.js";
import { readTextFile, splitLines } from "../text/positions.js";
import { defineTool, readOnly } from "./kit/define.js";
import type { Answer } from "./kit/envelope.js";
import { maxAnswerChars } from "./kit/params.js";

/** Room for the other fields of the result when fitting content into the budget. */
const envelopeChars = 300;

const output = {
  relative_path: z.string(),
  start_line: z.number().int().describe("1-based, first line in content"),
  end_line: z.number().int().describe("1-based, last line in content (inclusive)"),
  total_lines: z.number().int(),
  content: z.string().describe("the lines, joined with \\n"),
};
type ReadResult = Answer<typeof output>;

export const readFileTool = defineTool({
  name: "read_file",
  title: "Read a file",
  description:
    "Reads a text file or a line range. For code prefer get_symbols_overview and find_symbol with include_body.",
  input: {
    relative_path: z.string(),
    start_line: z.number().int().min(1).default(1),
    end_line: z.number().int().min(1).optional().describe("inclusive"),
    max_answer_chars: maxAnswerChars,
  },
  output,
  annotations: readOnly,
  async run(args, ctx) {
    const project = ctx.project;
    const path = project.sandbox.resolve(args.relative_path, { mustExist: true, kind: "file" });
    const { text } = await readTextFile(path.abs, path.rel);
    const lines = splitLines(text);
    const total = lines.length;
    if (total === 0) {
      if (args.start_line > 1) {
        throw new AppError(
          "invalid_argument",
          `'${path.rel}' is empty; there is no line ${args.start_line}.`,
        );
      }
      return { relative_path: path.rel, start_line: 1, end_line: 0, total_lines: 0, content: "" };
    }
    if (args.start_line > total) {
      throw new AppError(
        "invalid_argument",
        `start_line ${args.start_line} is past the end of '${path.rel}', which has ${total} lines.`,
      );
    }
    const end = Math.min(args.end_line ?? total, total);
    if (end < args.start_line) {
      throw new AppError("invalid_argument", `end_line ${end} is before start_line ${args.start_line}.`);
    }
    return fitLines(path.rel, lines, args.start_line, end, args.max_answer_chars);
  },
  render(r) {
    const range =
      r.total_lines === 0 ? "empty file" : `lines ${r.start_line}-${r.end_line} of ${r.total_lines}`;
    return `${r.relative_path} (${range})\n${r.content}`;
  },
  // Fallback if the estimate in fitLines was short: keep halving the range.
  shrink: [halve, halve, halve, halve],
  narrowHint: "Read a smaller range with start_line/end_line, or use find_symbol to read just one symbol.",
});

/** Takes whole lines from `start` while they fit the budget (as JSON, which is what gets measured). */
function fitLines(rel: string, lines: string[], start: number, end: number, budget: number): ReadResult {
  const room = Math.max(0, budget - envelopeChars - rel.length);
  let used = 0;
  let last = start - 1;
  for (let l = start; l <= end; l++) {
    const size = JSON.stringify(lines[l - 1] ?? "").length; // quotes stand in for the joining "\n"
    if (used + size > room) break;
    used += size;
    last = l;
  }
  const base = { relative_path: rel, start_line: start, total_lines: lines.length };
  if (last === end) return { ...base, end_line: end, content: lines.slice(start - 1, end).join("\n") };
  if (last < start) {
    // Not even the first line fits: return its beginning and say so.
    const line = lines[start - 1] ?? "";
    return {
      ...base,
      end_line: start,
      content: line.slice(0, Math.max(0, Math.floor(room / 2))),
      truncated: true,
      hint: `Line ${start} alone is longer than max_answer_chars (${line.length} characters) and was cut; raise max_answer_chars to see all of it.`,
    };
  }
  return {
    ...base,
    end_line: last,
    content: lines.slice(start - 1, last).join("\n"),
    truncated: true,
    hint: `Showing lines ${start}-${last} of ${lines.length}. Continue with start_line=${last + 1}, or raise max_answer_chars.`,
  };
}

function halve(r: ReadResult): ReadResult {
  const lines = r.content.split("\n");
  if (lines.length <= 1) return { ...r, content: r.content.slice(0, Math.floor(r.content.length / 2)) };
  const keep = Math.ceil(lines.length / 2);
  return { ...r, end_line: r.start_line + keep - 1, content: lines.slice(0, keep).join("\n") };
}
