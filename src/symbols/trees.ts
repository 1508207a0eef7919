/**
 * Built symbol trees of recently used files, bounded by their total node count (an LRU): the
 * table holds every file's symbols as text, this holds trees for the files being worked on, so
 * repeated lookups (the reference sites of one symbol, a directory's overview) build each once.
 */
import type { SymbolNode } from "./tree.js";
import { walk } from "./tree.js";

/**
 * Nodes kept at most. Measured on the generated 5k-file project (58 symbols a file): ~570 bytes a
 * node. At 100,000 nodes (~57 MB, every file of a 1.7k-file project) the trees were the largest
 * part of scalpel's live heap after warm references (about 55 of 126 MB in a heap snapshot), filled
 * by the site files of one call, which keep what their sites showed instead (SiteText.facts) and
 * need no tree again. 30,000 nodes (~17 MB) still hold about 500 such files for repeated lookups
 * (a directory's overview, find_symbol hits); past that trees are rebuilt from the table (~0.2 ms
 * a file): the old unbounded cache was most of scalpel's 809 MB at 5k files.
 */
export const maxNodes = 30_000;

interface Held {
  hash: string;
  roots: SymbolNode[];
  nodes: number;
}

export class TreeCache {
  private readonly held = new Map<string, Held>();
  private nodes = 0;

  constructor(private readonly max = maxNodes) {}

  /** Nodes held now: the bound's measure. */
  get size(): number {
    return this.nodes;
  }

  /** The tree of `abs` built for exactly the text with this hash, or null. */
  get(abs: string, hash: string): SymbolNode[] | null {
    const hit = this.held.get(abs);
    if (!hit || hit.hash !== hash) return null;
    // Most recently used last: the Map's order is the eviction order.
    this.held.delete(abs);
    this.held.set(abs, hit);
    return hit.roots;
  }

  set(abs: string, hash: string, roots: SymbolNode[]): void {
    this.drop(abs);
    let nodes = 0;
    for (const _ of walk(roots)) nodes++;
    this.held.set(abs, { hash, roots, nodes });
    this.nodes += nodes;
    for (const [oldest] of this.held) {
      if (this.nodes <= this.max || oldest === abs) break;
      this.drop(oldest);
    }
  }

  drop(abs: string): void {
    const had = this.held.get(abs);
    if (!had) return;
    this.nodes -= had.nodes;
    this.held.delete(abs);
  }
}
