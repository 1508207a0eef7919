/**
 * "Did you mean" for a misspelt name (a command-line option, a tool parameter, a symbol): a
 * refusal that names the likely intended one costs the caller one retry instead of a search.
 */

/** Levenshtein distance; past `max` the answer is only `max + 1` (long names cost no full table). */
export function editDistance(a: string, b: string, max = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row.push(Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    }
    prev = row;
  }
  return prev[b.length]!;
}

/** Case, `-` and `_` do not tell names apart for a suggestion: `readonly` means `read-only`. */
const plain = (name: string) => name.toLowerCase().replaceAll(/[-_]/g, "");

/**
 * The candidate `name` most likely meant: one spelt the same but for case, `-` and `_`, else the
 * nearest within 2 edits (and fewer edits than `name` has letters, so `x` suggests nothing).
 */
export function didYouMean(name: string, candidates: Iterable<string>): string | undefined {
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    if (plain(candidate) === plain(name)) return candidate;
    const distance = editDistance(candidate, name, 2);
    if (distance <= 2 && distance < name.length && (!best || distance < best.distance))
      best = { candidate, distance };
  }
  return best?.candidate;
}
