/**
 * A caller's glob (find_file's file_mask, search_for_pattern's include/exclude_glob), matched in
 * the regex worker. picomatch compiles a glob to a backtracking regular expression: each `*` is a
 * lazy `[^/]*?`, so `*a*a*a*a*a*a*b` took 11 s on one 60-character file name and `*a*a*a*b` 2.5 s
 * on a 255-character one (picomatch 4.0.7, measured) — on the main thread, for every file walked.
 * The worker bounds it like any other regex; the names go in batches.
 */
import picomatch from "picomatch";
import { AppError } from "../core/errors.js";
import { maxPatternChars, regexBounds, regexRunError } from "./regex-pattern.js";
import { regexTests } from "./regex-worker.js";

export interface Glob {
  /** The argument's name, for messages. */
  param: string;
  glob: string;
  /** A glob with '/' is matched against the project-relative path, one without against the base name. */
  byPath: boolean;
  regex: RegExp;
}

/**
 * Compiles a glob as picomatch would match it with `{dot: true}`: its matcher is `regex.test` of
 * the same `makeRe` (checked on the globs the tool descriptions show). Extglobs stay as picomatch
 * reads them.
 */
export function compileGlob(glob: string, param: string): Glob {
  if (glob.length > maxPatternChars) {
    throw new AppError(
      "too_large",
      `${param} is ${glob.length} characters; the limit for a glob is ${maxPatternChars} (maximum pattern length).`,
    );
  }
  try {
    return { param, glob, byPath: glob.includes("/"), regex: picomatch.makeRe(glob, { dot: true }) };
  } catch (e) {
    throw new AppError("invalid_argument", `${param} '${glob}' is not a valid glob: ${(e as Error).message}`);
  }
}

/** Whether each project-relative path matches the glob (by its base name for a glob without '/'). */
export async function globMatches(glob: Glob, rels: string[], signal: AbortSignal): Promise<boolean[]> {
  if (rels.length === 0) return [];
  const subjects = glob.byPath ? rels : rels.map((rel) => rel.slice(rel.lastIndexOf("/") + 1));
  try {
    return await regexTests(glob.regex, subjects, regexBounds(signal));
  } catch (e) {
    throw regexRunError(e, `the file names under the searched folder`, glob.param);
  }
}
