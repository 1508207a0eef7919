import { stringBytes } from "./string-bytes.js";

/**
 * A memo keyed by strings and bounded by the bytes its keys take (string-bytes.ts): past the bound
 * it starts over, all at once. For values worked out from long strings that are their own keys (a
 * reference answer's entry texts), where a bound by count let a few long keys hold any amount.
 */
export class TextKeyedMemo<V> {
  private readonly values = new Map<string, V>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string): V | undefined {
    return this.values.get(key);
  }

  /** Remembers `value` unless `key` alone is over the bound. */
  set(key: string, value: V): void {
    const weight = stringBytes(key);
    if (weight > this.maxBytes || this.values.has(key)) return;
    if (this.bytes + weight > this.maxBytes) {
      this.values.clear();
      this.bytes = 0;
    }
    this.values.set(key, value);
    this.bytes += weight;
  }

  /** The keys' bytes held now. */
  get size(): number {
    return this.bytes;
  }
}
