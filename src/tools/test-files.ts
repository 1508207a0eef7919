/**
 * Which files hold tests, as each language declares them (`LanguageAdapter.testFiles`): what the
 * `exclude_tests` parameter of the symbol tools leaves out.
 */
import ignore, { type Ignore } from "ignore";
import { z } from "zod";
import type { LanguageAdapter } from "../../language-servers/adapter.js";
import type { Project } from "../project/project.js";

/** For a language that declares nothing: the folders most ecosystems keep tests in. */
const defaultTestFiles: readonly string[] = ["test/", "tests/", "__tests__/"];

const matchers = new WeakMap<LanguageAdapter, Ignore>();

export const excludeTests = z
  .boolean()
  .default(false)
  .describe("Leave out test files (per language: *.test.*, *.spec.*, test/, tests/, __tests__/ …)");

/** True when `rel` (project-relative, `/`-separated) is a test file of the language that serves it. */
export function isTestFile(project: Project, rel: string): boolean {
  return isTestPath(project.pool.adapterForPath(rel), rel);
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
