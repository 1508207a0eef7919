/** The one list of language adapters; everything else iterates it. */
import type { LanguageServerConfig } from "../src/project/config.js";
import { genericDeclarationSyntax, markDeclarations } from "../src/symbols/declaration.js";
import type { LanguageAdapter } from "./adapter.js";
import { customAdapter } from "./custom.js";
import { dartAdapter } from "./dart.js";
import { rustAnalyzerAdapter } from "./rust-analyzer.js";
import { typescriptAdapter } from "./typescript.js";

/**
 * Every adapter's symbols, after its own clean-up, get the one declaration model: where each
 * declaration's docs/attributes and its body start (src/symbols/declaration.ts), with the
 * adapter's declaration syntax, or the generic one for servers declared in project.yml.
 */
function withDeclarations(adapter: LanguageAdapter): LanguageAdapter {
  const syntax = adapter.declarations ?? genericDeclarationSyntax;
  const own = adapter.normalizeSymbols;
  return {
    ...adapter,
    declarations: syntax,
    normalizeSymbols: (symbols, text) => markDeclarations(own ? own(symbols, text) : symbols, text, syntax),
  };
}

export const adapters: readonly LanguageAdapter[] = [typescriptAdapter, rustAnalyzerAdapter, dartAdapter].map(
  withDeclarations,
);

/**
 * The adapters of one project: the built-in ones plus those declared in its project.yml
 * (`language_servers`); a declared server with a built-in id replaces the built-in one.
 */
export function adaptersFor(
  declared: Readonly<Record<string, LanguageServerConfig>> = {},
): LanguageAdapter[] {
  const custom = Object.entries(declared).map(([id, config]) => withDeclarations(customAdapter(id, config)));
  const ids = new Set(custom.map((a) => a.id));
  return [...adapters.filter((a) => !ids.has(a.id)), ...custom];
}
