/**
 * How this process started, as src/launch.ts left it: whether the bundle was compiled from the
 * build's V8 code cache. Undefined when scalpel runs from its sources (tests, tsx).
 */
export function codeCacheState(): string | undefined {
  return (globalThis as { scalpelCodeCache?: string }).scalpelCodeCache;
}

/**
 * The hash of the running bundle (src/launch.ts), "source" when scalpel runs from its sources. A
 * client joins only a daemon of its own version and build (src/daemon/paths.ts).
 * `SCALPEL_DAEMON_BUILD_TAG` replaces it, for one use only: a test that needs a client of another
 * build without building a second bundle.
 */
export function buildId(env: NodeJS.ProcessEnv = process.env): string {
  const tag = env.SCALPEL_DAEMON_BUILD_TAG;
  if (tag !== undefined && /^[A-Za-z0-9_-]{1,32}$/.test(tag)) return tag;
  return (globalThis as { scalpelBuild?: string }).scalpelBuild ?? "source";
}
