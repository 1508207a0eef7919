/**
 * The import graph of scalpel's own code (src/ and language-servers/), read from the sources:
 * static imports, re-exports and dynamic `import("…")` with a literal specifier.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

export const repoRoot = new URL("../..", import.meta.url).pathname;

export function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const full = join(dir, n);
    return statSync(full).isDirectory() ? sourceFiles(full) : n.endsWith(".ts") ? [full] : [];
  });
}

/** Every module specifier a file names, relative or not. */
export function specifiers(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [
    ...[...text.matchAll(/^\s*(?:import|export)\b[^"';]*?\bfrom\s+["']([^"']+)["']/gm)].map((m) => m[1]!),
    ...[...text.matchAll(/^\s*import\s+["']([^"']+)["']/gm)].map((m) => m[1]!),
    ...[...text.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]!),
  ];
}

/** Repo-relative file → the repo-relative files it imports. */
export function importGraph(dirs: readonly string[] = ["src", "language-servers"]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const dir of dirs) {
    for (const abs of sourceFiles(join(repoRoot, dir))) {
      const targets = specifiers(abs)
        .filter((s) => s.startsWith("."))
        .map((s) => relative(repoRoot, resolve(dirname(abs), s.replace(/\.js$/, ".ts"))));
      graph.set(relative(repoRoot, abs), targets);
    }
  }
  return graph;
}

/** The strongly connected components with more than one member (Tarjan): each one is a cycle. */
export function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** The same graph between folders (a file's folder imports its targets' folders). */
export function folderGraph(graph: ReadonlyMap<string, readonly string[]>): Map<string, string[]> {
  const folders = new Map<string, Set<string>>();
  for (const [file, targets] of graph) {
    const from = dirname(file);
    const set = folders.get(from) ?? new Set<string>();
    folders.set(from, set);
    for (const t of targets) if (dirname(t) !== from) set.add(dirname(t));
  }
  return new Map([...folders].map(([k, v]) => [k, [...v]]));
}
