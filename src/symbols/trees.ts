/**
 * Built symbol trees of recently used files, bounded by their total node count (an LRU): the
 * table holds every file's symbols as text, this holds trees for the files being worked on, so
 * repeated lookups (the reference sites of one symbol, a directory's overview) build each once.
 */
import type { SymbolNode } from "./tree.js";
import { walk } from "./tree.js";

/**
 * Nodes kept at most. Measured on the generated 5k-file project (58 symbols a file): ~570 bytes a
 * node, so ~57 MB — every file of a 1.7k-file project. Past that, references over more files
 * rebuild trees from the table (~0.2 ms a file) rather than hold them all: the old unbounded cache
 * was most of scalpel's 809 MB at 5k files.
 */
const maxNodes = 100_000;

interface Held {
  hash: string;
  roots: SymbolNode[];
  nodes: number;
}

export class TreeCache {
  private readonly held = new Map<string, Held>();
  private nodes = 0;

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
      if (this.nodes <= maxNodes || oldest === abs) break;
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
