/** The one list of language adapters; everything else iterates it. */

import type { LanguageAdapter } from "../src/languages/adapter.js";
import { genericDeclarationSyntax, markDeclarations } from "../src/languages/declaration.js";
import type { LanguageServerConfig } from "../src/languages/declared-server.js";
import { customAdapter } from "./custom.js";
import { dartAdapter } from "./dart.js";
import { goAdapter } from "./go.js";
import { pythonAdapter } from "./python.js";
import { rustAnalyzerAdapter } from "./rust-analyzer.js";
import { typescriptAdapter } from "./typescript.js";
import { type TypescriptBackend, typescriptBackend } from "./typescript-backend.js";
import { typescriptNativeAdapter } from "./typescript-native.js";

/**
 * Every adapter's symbols, after its own clean-up, get the one declaration model: where each
 * declaration's docs/attributes and its body start (src/languages/declaration.ts), with the
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

const builtIn: readonly LanguageAdapter[] = [
  typescriptAdapter,
  rustAnalyzerAdapter,
  dartAdapter,
  goAdapter,
  pythonAdapter,
];

export const adapters: readonly LanguageAdapter[] = builtIn.map(withDeclarations);

/** The built-in adapters as they run for a project the user has not trusted (src/config/trust.ts). */
const untrustedAdapters: readonly LanguageAdapter[] = builtIn.map((a) => withDeclarations(a.untrusted()));

const native = withDeclarations(typescriptNativeAdapter);
const untrustedNative = withDeclarations(typescriptNativeAdapter.untrusted());

/** Every built-in server `scalpel doctor` probes: both TypeScript backends. */
export const probedAdapters: readonly LanguageAdapter[] = [adapters[0]!, native, ...adapters.slice(1)];

/** Which TypeScript backend a project gets (`typescript_backend`, SCALPEL_TS_BACKEND, its TypeScript major). */
export interface TypescriptChoice {
  root?: string;
  backend?: TypescriptBackend | undefined;
}

/**
 * The adapters of one project: the built-in ones plus those declared in its project.yml
 * (`language_servers`); a declared server with a built-in id replaces the built-in one. For a
 * project the user has not trusted, every adapter runs nothing of the repository: declared servers
 * are listed (so that answers say why they are not running) but never started, and replace nothing.
 */
export function adaptersFor(
  declared: Readonly<Record<string, LanguageServerConfig>> = {},
  trust: { readonly trusted: boolean },
  typescript: TypescriptChoice = {},
): LanguageAdapter[] {
  const tsNative = typescriptBackend(typescript.root, typescript.backend).backend === "native";
  const base = (trust.trusted ? adapters : untrustedAdapters).map((a) =>
    tsNative && a.id === "typescript" ? (trust.trusted ? native : untrustedNative) : a,
  );
  const builtInIds = new Set(base.map((a) => a.id));
  const custom = Object.entries(declared)
    .filter(([id]) => trust.trusted || !builtInIds.has(id))
    .map(([id, config]) => {
      const adapter = customAdapter(id, config);
      return withDeclarations(trust.trusted ? adapter : adapter.untrusted());
    });
  const ids = new Set(custom.map((a) => a.id));
  return [...base.filter((a) => !ids.has(a.id)), ...custom];
}
