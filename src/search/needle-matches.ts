/**
 * Where a needle (literal or regex) matches in a text and what each match becomes: the one
 * find-and-replace that replace_content (files) and edit_memory (memories) both run.
 */

import { AppError } from "../core/errors.js";
import { detectEol, lineStarts, maxTextFileBytes, positionAt } from "../text/positions.js";
import { compileUserRegex, maxReplaceMatches, regexBounds, regexRunError } from "./regex-pattern.js";
import { type RegexMatch, regexMatches, TooManyMatches } from "./regex-worker.js";

export interface Found {
  /** Offsets in the file's text. */
  start: number;
  end: number;
  newText: string;
  /** 1-based line of the start. */
  line: number;
}

/**
 * Matches are found in the text with CRLF read as LF when the whole file uses CRLF, so needles
 * written with `\n` match; offsets are mapped back to the real text. A regex runs in a worker
 * bounded by SCALPEL_REGEX_TIMEOUT and the call's signal (`regex-worker.ts`); `where` names the
 * text in its errors.
 */
export async function findMatches(
  text: string,
  needle: string,
  replacement: string,
  mode: "literal" | "regex",
  run: { signal: AbortSignal; where: string },
): Promise<Found[]> {
  const crlf = detectEol(text) === "\r\n" && !/(?<!\r)\n/.test(text);
  // A lone-CR file reads with `\n` in place of each `\r`: same length, so offsets need no mapping.
  const cr = detectEol(text) === "\r" && !text.includes("\n");
  const hay = crlf ? text.replaceAll("\r\n", "\n") : cr ? text.replaceAll("\r", "\n") : text;
  const lfOffsets: number[] = [];
  if (crlf) for (let i = hay.indexOf("\n"); i >= 0; i = hay.indexOf("\n", i + 1)) lfOffsets.push(i);
  // Each "\n" before an offset in `hay` was two characters in `text`.
  const toText = (o: number) => (crlf ? o + countBelow(lfOffsets, o) : o);
  const hayStarts = lineStarts(hay);
  const out: Found[] = [];
  // Input limits: matches per call, and the size of the result (`$&` repeated in a replacement
  // multiplies the text; a string of gigabytes ends the process).
  let grown = 0;
  const tooLarge = () =>
    new AppError(
      "too_large",
      `Replacing every match would make ${run.where} over ${maxTextFileBytes / 1024 / 1024} MiB, the limit for a text file. Replace fewer matches or a shorter replacement.`,
    );
  const push = (s: number, e: number, newLength: number, make: () => string) => {
    grown += newLength - (e - s);
    if (out.length >= maxReplaceMatches) throw regexRunError(new TooManyMatches(), run.where, "needle");
    if (text.length + grown > maxTextFileBytes) throw tooLarge();
    out.push({
      start: toText(s),
      end: toText(e),
      newText: make(),
      line: positionAt(hay, s, hayStarts).line + 1,
    });
  };

  if (mode === "literal") {
    const n = cr ? needle.replace(/\r\n?/g, "\n") : needle.replaceAll("\r\n", "\n");
    for (let i = hay.indexOf(n); i >= 0; i = hay.indexOf(n, i + n.length))
      push(i, i + n.length, replacement.length, () => replacement);
    return out;
  }
  const regex = compileUserRegex(needle, "needle", "Use mode: 'literal' to match text as is.");
  let matches: RegexMatch[];
  try {
    matches = await regexMatches(regex, hay, maxReplaceMatches, regexBounds(run.signal));
  } catch (e) {
    throw regexRunError(e, run.where, "needle");
  }
  const template = compileTemplate(replacement);
  // Sizes first, texts after: a result over the limit is refused before any text is made (20,000
  // `$&` over 1,000 matches took 4.4 s, nearly all of it GC, before the limit stopped it).
  let size = text.length;
  const lengths = matches.map((m) => {
    const n = expandedLength(template, m, hay);
    size += n - (m.captures[0] ?? "").length;
    if (size > maxTextFileBytes) throw tooLarge();
    return n;
  });
  matches.forEach((m, i) => {
    const whole = m.captures[0] ?? "";
    push(m.index, m.index + whole.length, lengths[i] ?? 0, () => expand(template, m, hay).join(""));
  });
  return out;
}

function countBelow(sorted: readonly number[], value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((sorted[mid] ?? 0) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** One piece of a replacement template: literal text, or a `$` substitution as written. */
type TemplatePart = string | { token: string; what: string; name?: string };

/**
 * The replacement parsed once per call, not once per match: a template of 20,000 `$&` expanded
 * by a regex callback for each of 1,000 matches took 4.4 s before the size limit stopped it.
 */
function compileTemplate(replacement: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let last = 0;
  for (const t of replacement.matchAll(/\$(\$|&|`|'|\d{1,2}|<([^>]*)>)/g)) {
    if (t.index > last) parts.push(replacement.slice(last, t.index));
    parts.push({ token: t[0], what: t[1] ?? "", ...(t[2] !== undefined ? { name: t[2] } : {}) });
    last = t.index + t[0].length;
  }
  if (last < replacement.length) parts.push(replacement.slice(last));
  return parts;
}

/** The length `expand` would give, without making its pieces. */
function expandedLength(template: readonly TemplatePart[], match: RegexMatch, input: string): number {
  let n = 0;
  for (const part of template)
    n += typeof part === "string" ? part.length : substitution(part, match, input).length;
  return n;
}

/**
 * `String.prototype.replace` substitutions for one match ($$, $&, $`, $', $n, $nn, $<name>), as
 * the pieces to join: each is a string that already exists (a capture, a slice, the literal).
 */
function expand(template: readonly TemplatePart[], match: RegexMatch, input: string): string[] {
  return template.map((part) => (typeof part === "string" ? part : substitution(part, match, input)));
}

function substitution(
  { token, what, name }: Exclude<TemplatePart, string>,
  match: RegexMatch,
  input: string,
): string {
  const m = match.captures;
  const index = match.index;
  const whole = m[0] ?? "";
  const groups = m.length - 1;
  if (what === "$") return "$";
  if (what === "&") return whole;
  if (what === "`") return input.slice(0, index);
  if (what === "'") return input.slice(index + whole.length);
  if (name !== undefined) return match.groups ? (match.groups[name] ?? "") : token;
  let n = Number(what);
  // "$12" with fewer than 12 groups means group 1 followed by "2", as in String.replace.
  if (what.length === 2 && n > groups) {
    n = Number(what[0]);
    if (n >= 1 && n <= groups) return (m[n] ?? "") + what[1];
    return token;
  }
  return n >= 1 && n <= groups ? (m[n] ?? "") : token;
}
