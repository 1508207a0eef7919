/**
 * How this process started, as src/launch.ts left it: whether the bundle was compiled from the
 * build's V8 code cache. Undefined when scalpel runs from its sources (tests, tsx).
 */
export function codeCacheState(): string | undefined {
  return (globalThis as { scalpelCodeCache?: string }).scalpelCodeCache;
}
