/**
 * Built symbol trees of recently used files, bounded by their estimated bytes (lru-cache): the
 * table holds every file's symbols as text, this holds trees for the files being worked on, so
 * repeated lookups (the reference sites of one symbol, a directory's overview) build each once.
 */
import { LRUCache } from "lru-cache";
import { stringBytes } from "../core/string-bytes.js";
import type { SymbolNode } from "./tree.js";
import { walk } from "./tree.js";

/**
 * Bytes of trees kept at most, as `treeBytes` estimates them. Measured on the generated 5k-file
 * project (58 symbols a file): ~570 bytes a node. At 100,000 nodes (~57 MB, every file of a
 * 1.7k-file project) the trees were the largest part of scalpel's live heap after warm references
 * (about 55 of 126 MB in a heap snapshot), filled by the site files of one call, which keep what
 * their sites showed instead (SiteText.facts) and need no tree again. 16 MiB (~29,000 such nodes)
 * still holds about 500 such files for repeated lookups (a directory's overview, find_symbol
 * hits); past that trees are rebuilt from the table (~0.2 ms a file): the old unbounded cache was
 * most of scalpel's 809 MB at 5k files.
 */
export const maxBytes = 16 * 1024 * 1024;

/**
 * A node's objects besides its strings, estimated: the node, its two ranges (three objects each),
 * its path and children arrays — what is left of the ~570 bytes measured a node once its name and
 * name path (~50 bytes on that project) are counted apart.
 */
const nodeBytes = 520;

/** What a tree weighs: each node's objects and strings (string-bytes.ts). */
export function treeBytes(roots: readonly SymbolNode[]): number {
  let bytes = 0;
  for (const n of walk(roots))
    bytes +=
      nodeBytes + stringBytes(n.name) + stringBytes(n.namePath) + (n.detail ? stringBytes(n.detail) : 0);
  return bytes;
}

interface Held {
  hash: string;
  roots: SymbolNode[];
  bytes: number;
}

export class TreeCache {
  private readonly held: LRUCache<string, Held>;
  private bytes = 0;

  constructor(max = maxBytes) {
    this.held = new LRUCache<string, Held>({
      maxSize: max,
      // A tree larger than the whole bound is kept alone (the cache refuses an entry over its
      // bound): it is the file being worked on. Weights are positive integers to the cache.
      sizeCalculation: (held) => Math.min(Math.max(held.bytes, 1), max),
      dispose: (held) => {
        this.bytes -= held.bytes;
      },
    });
  }

  /** Bytes held now, as weighed: the bound's measure. */
  get size(): number {
    return this.bytes;
  }

  /** The tree of `abs` built for exactly the text with this hash, or null. */
  get(abs: string, hash: string): SymbolNode[] | null {
    // Peeked first: a tree of another text is no use of the entry and must not renew it.
    const hit = this.held.peek(abs);
    if (!hit || hit.hash !== hash) return null;
    this.held.get(abs);
    return hit.roots;
  }

  set(abs: string, hash: string, roots: SymbolNode[]): void {
    const bytes = treeBytes(roots);
    this.held.set(abs, { hash, roots, bytes });
    this.bytes += bytes;
  }

  drop(abs: string): void {
    this.held.delete(abs);
  }
}
