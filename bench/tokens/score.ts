/**
 * Scoring for the token benchmark: the two forms of a scalpel answer a host may give the model,
 * and precision/recall of an answer set against the compiler's ground truth. Pure, unit-tested.
 */

/** What one MCP tool result costs the model, in each form a host may show. */
export interface FormChars {
  /** The text content items, joined (hosts that read `content`). */
  text: number;
  /**
   * `JSON.stringify(structuredContent)`: what Claude Code gives the model when the result has
   * structured content (it then drops the text); an error result has none, so its text counts.
   */
  json: number;
}

export interface McpResultLike {
  [field: string]: unknown;
  content?: unknown | undefined;
  structuredContent?: unknown | undefined;
  isError?: boolean | undefined;
}

export function textOf(result: McpResultLike): string {
  const content = Array.isArray(result.content)
    ? (result.content as Array<{ type?: string; text?: string }>)
    : [];
  return content
    .filter((c) => c.type === "text" && typeof c.text === "string")
    .map((c) => c.text)
    .join("\n");
}

export function formChars(result: McpResultLike): FormChars {
  const text = textOf(result).length;
  const json =
    result.structuredContent === undefined ? text : JSON.stringify(result.structuredContent).length;
  return { text, json };
}

export interface PrecisionRecall {
  precision: number;
  recall: number;
  /** Items in the answer, in the truth, and in both. */
  answered: number;
  truth: number;
  hits: number;
}

/**
 * Precision and recall of `answer` against `truth` (both sets of keys, duplicates ignored).
 * An empty answer to an empty truth is exact (1/1); an empty answer otherwise has precision 1
 * (it claims nothing wrong) and recall 0.
 */
export function precisionRecall(answer: Iterable<string>, truth: Iterable<string>): PrecisionRecall {
  const a = new Set(answer);
  const t = new Set(truth);
  let hits = 0;
  for (const k of a) if (t.has(k)) hits++;
  return {
    precision: a.size === 0 ? 1 : hits / a.size,
    recall: t.size === 0 ? 1 : hits / t.size,
    answered: a.size,
    truth: t.size,
    hits,
  };
}

/** The key of a site: `file:line`. */
export function siteKey(file: string, line: number): string {
  return `${file}:${line}`;
}

/** `file:line` keys for every line from `first` to `last`. */
export function lineKeys(file: string, first: number, last: number): string[] {
  const out: string[] = [];
  for (let l = first; l <= last; l++) out.push(siteKey(file, l));
  return out;
}

/** `a / b` as a ratio string, e.g. `7.4×`. */
export function ratio(grep: number, scalpel: number): string {
  return scalpel === 0 ? "∞" : `${(grep / scalpel).toFixed(1)}×`;
}

export function pr(p: PrecisionRecall): string {
  return `${p.precision.toFixed(2)}/${p.recall.toFixed(2)}`;
}

export const SAME_PATH = "relative_path (repeats the enclosing one)";
export const SAME_PATH_AS_PREVIOUS = "relative_path (repeats the previous item's)";
export const SAME_NAME = "name_path (equals name)";

/**
 * Where the characters of `JSON.stringify(value)` go, by field name: a leaf field costs its key,
 * value, colon and comma; an object or array field costs only its key (its contents are counted
 * by their own fields). Fields that repeat what the reader already has are counted apart:
 * `relative_path` equal to an enclosing object's or to the previous list item's, and `name_path`
 * equal to the same object's `name`.
 */
export function fieldChars(value: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  const add = (k: string, n: number) => {
    out[k] = (out[k] ?? 0) + n;
  };
  const walk = (v: unknown, enclosing: string | undefined, previous: string | undefined) => {
    if (Array.isArray(v)) {
      let prev: string | undefined;
      for (const x of v) {
        walk(x, enclosing, prev);
        const p = (x as { relative_path?: unknown } | null)?.relative_path;
        prev = typeof p === "string" ? p : undefined;
      }
      return;
    }
    if (v === null || typeof v !== "object") return;
    const o = v as Record<string, unknown>;
    const own = typeof o.relative_path === "string" ? o.relative_path : undefined;
    for (const [k, x] of Object.entries(o)) {
      const key = JSON.stringify(k).length + 2;
      if (x !== null && typeof x === "object") {
        add(k, key);
        walk(x, own ?? enclosing, undefined);
      } else if (x !== undefined) {
        let label = k;
        if (k === "relative_path" && x === enclosing) label = SAME_PATH;
        else if (k === "relative_path" && x === previous) label = SAME_PATH_AS_PREVIOUS;
        if (k === "name_path" && x === o.name) label = SAME_NAME;
        add(label, key + JSON.stringify(x).length);
      }
    }
  };
  walk(value, undefined, undefined);
  return out;
}

/** The `n` costliest fields, as `field 1234` strings. */
export function topFields(fields: Record<string, number>, n: number): string[] {
  return Object.entries(fields)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, n)
    .map(([k, c]) => `${k} ${c}`);
}
