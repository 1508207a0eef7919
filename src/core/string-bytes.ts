/**
 * What V8 keeps a flat string in, estimated for bounding caches by bytes: a header and a byte
 * per character (its one-byte form, which holds any text of Latin-1 characters only), two per
 * character when any is past U+00FF.
 */
export function stringBytes(s: string): number {
  return stringHeaderBytes + (twoByte.test(s) ? 2 : 1) * s.length;
}

/** A string's header (map, hash, length), rounded up. */
export const stringHeaderBytes = 16;

// Any character past U+00FF (NUL and the other controls are one-byte characters like the rest).
// biome-ignore lint/suspicious/noControlCharactersInRegex: the range starts at U+0000 on purpose
const twoByte = /[^\u0000-\u00ff]/;
