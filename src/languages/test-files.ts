/**
 * Which files hold tests, as each language declares them (`LanguageAdapter.testFiles`): what the
 * `exclude_tests` parameter of the symbol tools leaves out.
 */
import ignore, { type Ignore } from "ignore";
import type { LanguageAdapter } from "./adapter.js";

/** For a language that declares nothing: the folders most ecosystems keep tests in. */
const defaultTestFiles: readonly string[] = ["test/", "tests/", "__tests__/"];

/** What tells which language serves a path (the project's server pool). */
export interface AdapterLookup {
  adapterForPath(rel: string): LanguageAdapter | null;
}

const matchers = new WeakMap<LanguageAdapter, Ignore>();

/** True when `rel` (project-relative, `/`-separated) is a test file of the language that serves it. */
export function isTestFile(pool: AdapterLookup, rel: string): boolean {
  return isTestPath(pool.adapterForPath(rel), rel);
}

/** True when `adapter` declares `rel` a test file (a file no adapter serves is none). */
export function isTestPath(adapter: LanguageAdapter | null, rel: string): boolean {
  if (!adapter) return false;
  let m = matchers.get(adapter);
  if (!m) {
    m = ignore().add([...(adapter.testFiles ?? defaultTestFiles)]);
    matchers.set(adapter, m);
  }
  return m.ignores(rel);
}
