/** The one list of language adapters; everything else iterates it. */
import type { LanguageServerConfig } from "../src/project/config.js";
import type { LanguageAdapter } from "./adapter.js";
import { customAdapter } from "./custom.js";
import { dartAdapter } from "./dart.js";
import { rustAnalyzerAdapter } from "./rust-analyzer.js";
import { typescriptAdapter } from "./typescript.js";

export const adapters: readonly LanguageAdapter[] = [typescriptAdapter, rustAnalyzerAdapter, dartAdapter];

/**
 * The adapters of one project: the built-in ones plus those declared in its project.yml
 * (`language_servers`); a declared server with a built-in id replaces the built-in one.
 */
export function adaptersFor(
  declared: Readonly<Record<string, LanguageServerConfig>> = {},
): LanguageAdapter[] {
  const custom = Object.entries(declared).map(([id, config]) => customAdapter(id, config));
  const ids = new Set(custom.map((a) => a.id));
  return [...adapters.filter((a) => !ids.has(a.id)), ...custom];
}
