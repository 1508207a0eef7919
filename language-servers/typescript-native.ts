/**
 * TypeScript 7's native language server (`tsc --lsp --stdio`, typescript-go) as a second backend
 * for the `typescript` language, chosen by `typescript_backend` in project.yml or by the project's
 * own TypeScript major (see `typescriptBackend`). Measured on 7.0.2; re-check on a new version.
 *
 * Measured on rxjs 7.8.2 `src` (npm pack; 251 files under one strict tsconfig with `bundler`
 * resolution, since 7.0 refuses `baseUrl`), through scalpel over MCP on a shared 2-core machine:
 * start → first complete `find_referencing_symbols` of `Observable` (392 sites in 80 files, the
 * same answer on both) / warm median of 7 / peak RSS of the server's process tree / scalpel's RSS:
 *   native 7.0.2:                2.9 s / 122 ms / 102 MB / 124 MB
 *   tsserver (tsls 5.3.0, 5.9.3): 6.8 s / 449 ms / 296 MB / 126 MB
 * The raw native request: first complete references 0.58 s after spawn, warm 20–42 ms (313 sites
 * without declaration and import sites); the rest of the cold and warm time is scalpel's own.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { type DocumentSymbol, SymbolKind } from "vscode-languageserver-protocol";
import type { AskProject, LanguageAdapter, ProjectCheck, ServerProbe } from "../src/languages/adapter.js";
import type { ServerSpec } from "../src/lsp/types.js";
import { allLines } from "../src/text/lines.js";
import { tscCheck } from "./tsc-check.js";
import { prewarmTsconfigReader, tsconfigFilesApart } from "./tsconfig-apart.js";
import { typescriptCommon } from "./typescript.js";
import { majorOf, readJson } from "./typescript-backend.js";
import { inferredNote } from "./typescript-project.js";
import { normalizeTypescriptSymbols, widenDeclarations } from "./typescript-symbols.js";

const require = createRequire(import.meta.url);

/** The platform package the `typescript@7` package resolves its binary from (its lib/getExePath.js). */
const platformPackage = `@typescript/typescript-${process.platform}-${process.arch}`;

interface NativeCompiler {
  /** The platform binary itself: the npm `bin/tsc` wrapper keeps a Node parent alive on Node 20. */
  exe: string;
  version: string;
  /** Whose copy: the project's node_modules or scalpel's own. */
  source: "project" | "scalpel";
}

/** The platform binary of a platform package whose package.json is `platformPkg`. */
function binaryOf(platformPkg: string, source: NativeCompiler["source"]): NativeCompiler | undefined {
  const version = readJson(platformPkg)?.version;
  if (typeof version !== "string" || majorOf(version) < 7) return undefined;
  const exe = join(dirname(platformPkg), "lib", process.platform === "win32" ? "tsc.exe" : "tsc");
  return existsSync(exe) ? { exe, version, source } : undefined;
}

/** The binary next to a `typescript@7` package whose package.json is `pkgJson` (as its lib/getExePath.js finds it). */
function compilerOf(pkgJson: string, source: NativeCompiler["source"]): NativeCompiler | undefined {
  const version = readJson(pkgJson)?.version;
  if (typeof version !== "string" || majorOf(version) < 7) return undefined;
  try {
    return binaryOf(createRequire(pkgJson).resolve(`${platformPackage}/package.json`), source);
  } catch {
    return undefined;
  }
}

/**
 * scalpel's own copy: the platform package alone, an optional dependency pinned in package.json
 * (npm installs the one matching os/cpu). Not the `typescript@7` package itself: its `tsc` bin
 * would take node_modules/.bin/tsc from TypeScript 5.9 that builds scalpel (measured with an npm
 * alias: `npm run build` ran 7.0.2).
 */
export function ownCompiler(): NativeCompiler | { missing: string } {
  let pkg: string | undefined;
  try {
    pkg = require.resolve(`${platformPackage}/package.json`);
  } catch {
    pkg = undefined;
  }
  return (
    (pkg ? binaryOf(pkg, "scalpel") : undefined) ?? {
      missing: `TypeScript 7's native compiler is not installed for this platform (${platformPackage}, an optional dependency of scalpel); reinstall scalpel, or set typescript_backend: tsserver in .scalpel/project.yml.`,
    }
  );
}

/**
 * The project's own `node_modules/typescript` when it is 7 or later and the project is trusted (a
 * repository's binary is its code: an untrusted project gets scalpel's own copy), else scalpel's.
 */
function compilerFor(root: string, trusted: boolean): NativeCompiler | { missing: string } {
  const own = trusted
    ? compilerOf(join(root, "node_modules", "typescript", "package.json"), "project")
    : undefined;
  return own ?? ownCompiler();
}

const languageIds: Record<string, string> = {
  ".tsx": "typescriptreact",
  ".js": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
  ".jsx": "javascriptreact",
};

/** Automatic type acquisition runs npm and writes to the user's cache: off, as for tsserver. */
const settings: Record<string, unknown> = {
  "js/ts": { tsserver: { automaticTypeAcquisition: { enabled: false } } },
  typescript: { disableAutomaticTypeAcquisition: true },
};

function spec(root: string, trusted: boolean): ServerSpec | { missing: string } {
  const compiler = compilerFor(root, trusted);
  if ("missing" in compiler) return compiler;
  return {
    id: "typescript",
    launch: { command: compiler.exe, args: ["--lsp", "--stdio"] },
    // The binary serves by itself: no child process to watch (measured: `ps --ppid` empty).
    initializationOptions: {},
    configuration: (section) => (section === undefined ? null : (settings[section] ?? null)),
    // No $/progress at all (measured): the first request after a didOpen waits inside the server
    // while the project loads (documentSymbol 75 ms after initialize on a 2-file project) and its
    // answers are complete from then on: nothing to wait for.
    readiness: {},
    languageIdFor: (ext) => languageIds[ext] ?? "typescript",
    // Pull only in 7.0.2 (`textDocument/diagnostic`, 5–50 ms warm); it pushes tsconfig problems only.
    diagnostics: "pull",
    // Measured (7.0.2): lib.ts overlaid to return a string, the pull of caller.ts (never opened
    // before) answered its TS2322 in 22 ms; after the overlay was lifted, none.
    checksUnsaved: true,
    requestTimeoutMs: 30_000,
    // References read the defining tsconfig's file list in a child process (tsconfig-apart.ts):
    // its node start and compiler load (0.2–0.4 s under load) came between the project's answer
    // and the references request of a cold first call; started while the server loads the
    // project, the reader waits with the compiler loaded.
    warmUp: prewarmTsconfigReader,
  };
}

/**
 * The whole-project check with the same native compiler, run directly (not through Node). 7.0.2
 * prints the same `--pretty false` lines as tsc 5.9 and takes the same flags.
 */
function nativeCheck(trusted: boolean): ProjectCheck {
  const base = tscCheck(() => "tsc");
  return {
    ...base,
    units(root, manifests) {
      const compiler = compilerFor(root, trusted);
      if ("missing" in compiler) return [];
      return base.units(root, manifests).map((u) => ({
        ...u,
        launch: { command: compiler.exe, args: u.launch.args.slice(1) },
      }));
    },
  };
}

/**
 * The native server lists import bindings (`import { a, type B }`, `* as ns`, a default import)
 * and re-exports (`export { a as b } from`) among a module's symbols, as Variables: they declare
 * nothing of the file, tsserver lists none of them, and `find_symbol` would find each name once per
 * importing file. Top-level symbols that start inside such a statement are dropped.
 */
const importStatement =
  /^[ \t]*(?:import(?=[\s{*])[^;]*?(?:\bfrom\s*["'][^"'\n]*["']|=\s*require\s*\([^)]*\))|export\s+(?:type\s+)?(?:\*|\{[^}]*\})(?:\s+as\s+[\p{L}\p{N}_$]+)?\s*from\s*["'][^"'\n]*["'])/gmu;

function importSpans(text: string): Array<[number, number]> {
  return [...text.matchAll(importStatement)].map((m) => [m.index, m.index + m[0].length]);
}

export function dropImportBindings(symbols: DocumentSymbol[], text: string): DocumentSymbol[] {
  if (!/^[ \t]*(?:import|export)\b/m.test(text)) return symbols;
  const spans = importSpans(text);
  const lineStarts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) lineStarts.push(i + 1);
  const offset = (p: { line: number; character: number }) =>
    (lineStarts[p.line] ?? text.length) + p.character;
  return symbols.filter((s) => {
    if (s.kind !== SymbolKind.Variable) return true;
    const at = offset(s.range.start);
    return !spans.some(([from, to]) => at >= from && at < to);
  });
}

/**
 * `type X = …` comes as a Class in 7.0.2 (a Variable through tsls): both become TypeParameter,
 * the kind the tsserver backend and rust-analyzer give type aliases. The declaration's text tells.
 */
const typeAliasStart = /^(?:(?:export|declare|default)\s+)*type\s+([\p{L}\p{N}_$]+)/u;

function markTypeAliases(symbols: DocumentSymbol[], lines: readonly string[]): DocumentSymbol[] {
  return symbols.map((sym) => {
    const children = sym.children ? markTypeAliases(sym.children, lines) : undefined;
    const out = children ? { ...sym, children } : sym;
    if (sym.kind !== SymbolKind.Variable && sym.kind !== SymbolKind.Class) return out;
    const alias = typeAliasStart.exec((lines[sym.range.start.line] ?? "").slice(sym.range.start.character));
    return alias?.[1] === sym.name ? { ...out, kind: SymbolKind.TypeParameter } : out;
  });
}

/**
 * 7.0.2's `custom/projectInfo` (an open document's URI) answers the tsconfig that holds the file,
 * `configFilePath: ""` for a file in no tsconfig (an inferred project). It lists no files: the
 * tsconfig's own patterns do (tsconfig-read.ts, run in a child process by tsconfig-apart.ts), so
 * that references open the files outside the project that mention the name first — like tsserver, the native server finds uses in a file
 * outside every tsconfig only while it is open (45 loose test files: 1 found without opening).
 */
const askProject: AskProject = async (server, file, opts) => {
  if (!server.request) throw new Error("custom/projectInfo needs a request to the server");
  const { listFiles, root, ...request } = opts;
  const res = await server.request<{ configFilePath?: string } | null>(
    "custom/projectInfo",
    { textDocument: { uri: file.uri } },
    request,
  );
  const config = res?.configFilePath ? res.configFilePath : null;
  if (!config) return { config, note: inferredNote };
  return listFiles ? { config, files: await tsconfigFilesApart(config, root) } : { config };
};

async function probe(root?: string): Promise<ServerProbe> {
  const compiler = root === undefined ? ownCompiler() : compilerFor(root, true);
  if ("missing" in compiler) return { found: false, hint: compiler.missing };
  return {
    found: true,
    command: `tsc --lsp, ${compiler.source === "project" ? "the project's node_modules" : "bundled"}`,
    version: `typescript ${compiler.version} (native)`,
  };
}

function nativeAdapterFor(trusted: boolean): LanguageAdapter {
  return {
    ...typescriptCommon,
    displayName: "TypeScript / JavaScript (TypeScript 7 native)",
    spec: (root) => spec(root, trusted),
    untrusted: () => nativeAdapterFor(false),
    probe,
    normalizeSymbols: (symbols, text) => {
      const lines = allLines(text);
      const own = dropImportBindings(symbols, text);
      return markTypeAliases(widenDeclarations(normalizeTypescriptSymbols(own), lines), lines);
    },
    projectCheck: nativeCheck(trusted),
    // Measured on 7.0.2: `includeDeclaration: false` left `import { größe } from …` out (tsserver
    // lists it), `true` lists it plus the declaration itself.
    referencesWithDeclaration: true,
    project: { ask: askProject },
  };
}

/** The native backend for a trusted project (the project's own TypeScript ≥ 7 when it has one). */
export const typescriptNativeAdapter: LanguageAdapter = nativeAdapterFor(true);
