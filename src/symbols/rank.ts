/**
 * Ranked search over symbols for queries that are not exact names ("price display", "parse
 * config"): identifiers split at camelCase, snake_case and kebab-case boundaries, words reduced to
 * a rough stem, and BM25F scoring over four weighted fields — the symbol's own name, the name path
 * above it, its kind and its doc comment. A small own implementation: the index is per call and in
 * memory, a few thousand symbols, so no library's index format is worth the dependency.
 */

/** How much a word counts in each field: a word of the name says most about what the symbol is. */
const fieldWeights = { name: 3, path: 1, kind: 1, doc: 1 } as const;
export type Field = keyof typeof fieldWeights;

/** BM25 parameters (the usual ones): term-frequency saturation and length normalisation. */
const k1 = 1.2;
const b = 0.75;
/** A query word that only starts a document word ("config" → "configuration") counts this much. */
const prefixWeight = 0.5;

/** Words that say nothing about what a symbol does (and JSDoc tag names). */
const stopWords = new Set(
  "a an and are as at be by for from has have if in into is it its of on or that the this to was were will with which param returns return throws type see example".split(
    " ",
  ),
);

/** Words of an identifier or prose: `renderPriceLabel`, `parse_config`, `HTTPServer` → words. */
export function splitWords(text: string): string[] {
  const out: string[] = [];
  for (const chunk of text.split(/[^A-Za-z0-9]+/)) {
    for (const m of chunk.matchAll(/[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+/g))
      out.push(m[0].toLowerCase());
  }
  return out;
}

/**
 * A rough stem, enough to meet "displays"/"display", "parsing"/"parse", "prices"/"price": plural
 * and -ing/-ed endings off, a doubled final consonant single, a final e off.
 */
export function stem(word: string): string {
  let w = word;
  if (w.length > 4 && w.endsWith("ies")) w = `${w.slice(0, -3)}y`;
  else if (w.length > 3 && w.endsWith("s") && !w.endsWith("ss")) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith("ing")) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith("ed")) w = w.slice(0, -2);
  if (w.length > 3 && /([b-df-hj-np-tv-z])\1$/.test(w)) w = w.slice(0, -1);
  if (w.length >= 4 && w.endsWith("e")) w = w.slice(0, -1);
  return w;
}

/** The searchable terms of a text: split, stop words dropped, stemmed. */
export function terms(text: string): string[] {
  return splitWords(text)
    .filter((w) => !stopWords.has(w))
    .map(stem);
}

export interface SearchDoc<T> {
  item: T;
  fields: Partial<Record<Field, string>>;
}

export interface Ranked<T> {
  item: T;
  score: number;
}

interface Prepared<T> {
  item: T;
  /** Weighted frequency of each term over all fields. */
  tf: Map<string, number>;
  length: number;
}

/**
 * Scores every document against the query and returns those matching at least one query term,
 * best first. A coordination factor (the share of query terms matched) favours a symbol that is
 * about all of the query over one that says a single word of it many times.
 */
export function rank<T>(query: string, docs: readonly SearchDoc<T>[]): Ranked<T>[] {
  const queryTerms = [...new Set(terms(query))];
  if (queryTerms.length === 0) return [];
  const prepared: Prepared<T>[] = docs.map((d) => {
    const tf = new Map<string, number>();
    let length = 0;
    for (const field of Object.keys(fieldWeights) as Field[]) {
      const text = d.fields[field];
      if (!text) continue;
      const w = fieldWeights[field];
      for (const t of terms(text)) {
        tf.set(t, (tf.get(t) ?? 0) + w);
        length += w;
      }
    }
    return { item: d.item, tf, length };
  });
  const n = prepared.length;
  const avgLength = prepared.reduce((s, p) => s + p.length, 0) / Math.max(1, n);
  // Each query term with the document terms it meets: itself, and longer words it begins.
  const vocabulary = new Set<string>();
  for (const p of prepared) for (const t of p.tf.keys()) vocabulary.add(t);
  const expansions = queryTerms.map((q) => {
    const meets = new Map<string, number>([[q, 1]]);
    if (q.length >= 3) for (const t of vocabulary) if (t !== q && t.startsWith(q)) meets.set(t, prefixWeight);
    return meets;
  });
  const documentFrequency = new Map<string, number>();
  for (const p of prepared) {
    for (const meets of expansions) {
      for (const t of meets.keys())
        if (p.tf.has(t)) documentFrequency.set(t, (documentFrequency.get(t) ?? 0) + 1);
    }
  }
  const idf = (t: string) => {
    const df = documentFrequency.get(t) ?? 0;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  };
  const out: Ranked<T>[] = [];
  for (const p of prepared) {
    let score = 0;
    let matched = 0;
    const norm = k1 * (1 - b + (b * p.length) / Math.max(1, avgLength));
    for (const meets of expansions) {
      let best = 0;
      for (const [t, weight] of meets) {
        const f = p.tf.get(t);
        if (f === undefined) continue;
        best = Math.max(best, weight * idf(t) * ((f * (k1 + 1)) / (f + norm)));
      }
      if (best > 0) matched++;
      score += best;
    }
    if (matched === 0) continue;
    out.push({ item: p.item, score: score * (matched / queryTerms.length) });
  }
  return out.sort((x, y) => y.score - x.score);
}

/**
 * The doc comment of a declaration: the comments in `text` (its head, from the first doc comment to
 * the name), without comment markers; attributes and code left out.
 */
export function commentText(head: string): string {
  const parts: string[] = [];
  for (const m of head.matchAll(/\/\*[\s\S]*?\*\/|\/\/[^\n]*|#(?!\[)[^\n]*/g)) parts.push(m[0]);
  return parts
    .join("\n")
    .replace(/^\s*(\/\*+|\*+\/?|\/\/+!?|#+)/gm, " ")
    .replace(/\*+\//g, " ")
    .replace(/@\w+/g, " ");
}
