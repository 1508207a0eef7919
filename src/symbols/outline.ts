/**
 * A file's symbols in one string, where a list entry names the file and members are not asked for
 * (a directory's overview at depth 0, an overview fitted to its budget, implementations grouped by
 * file): its path, then one outline line per symbol, the same in the JSON and in the text. An
 * object per file (`{"relative_path":…,"outline":…}`) cost 30 characters of keys and quotes per
 * file (rxjs src/internal/scheduler/, 21 files: 630 of 2,930 characters of JSON).
 *
 *   src/internal/scheduler/asap.ts
 *   asapScheduler [Constant] 39         a symbol on one line: its line only;
 *   asap [Constant] 44-52               else its first and last lines
 */
import { z } from "zod";
import type { SymbolResult } from "./result.js";

export type OutlineFile = string;

export const outlineFileSchema = z
  .string()
  .describe("a file: its path, then one line per symbol: `name_path [kind] start-end` (1-based lines)");

/** A symbol in one line, `name_path [kind] start-end` (`start` alone for a one-line symbol). */
export function outlineLine(s: Pick<SymbolResult, "name_path" | "kind" | "start_line" | "end_line">): string {
  return `${s.name_path} [${s.kind}] ${spanOf(s)}`;
}

const spanOf = (s: Pick<SymbolResult, "start_line" | "end_line">) =>
  s.start_line === s.end_line ? `${s.start_line}` : `${s.start_line}-${s.end_line}`;

export function outlineFile(relativePath: string, lines: readonly string[]): OutlineFile {
  return [relativePath, ...lines].join("\n");
}

/** An entry read back: its path and its outline lines. */
export function readOutlineFile(entry: OutlineFile): { relative_path: string; lines: string[] } {
  const [relative_path = "", ...lines] = entry.split("\n");
  return { relative_path, lines };
}

/** The text form of entries: each path, then its lines indented by 2 (as references are shown). */
export function renderOutlineFiles(entries: readonly OutlineFile[]): string[] {
  return entries.map((e) => e.replace(/\n/g, "\n  "));
}

/**
 * The symbol an answer is about, in one line: its outline line with its file,
 * `name_path [kind] path:start-end` (an object cost 60 characters more: rxjs `innerFrom[1]`).
 */
export const symbolLineSchema = z
  .string()
  .describe("the symbol the name path resolved to: `name_path [kind] path:start-end`");

export function symbolLine(
  s: Pick<SymbolResult, "name_path" | "kind" | "start_line" | "end_line">,
  path: string,
): string {
  return `${s.name_path} [${s.kind}] ${path}:${spanOf(s)}`;
}
