/**
 * typescript-language-server 5.3.0 over tsserver. Behaviour measured on this version is recorded
 * next to each setting; re-check when either package changes.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  type Diagnostic,
  DiagnosticSeverity,
  type DocumentSymbol,
  SymbolKind,
} from "vscode-languageserver-protocol";
import type { AskProject, LanguageAdapter, ServerProbe } from "../src/languages/adapter.js";
import type { DeclarationSyntax } from "../src/languages/declaration.js";
import type { NormalizedSymbol } from "../src/languages/normalized-symbol.js";
import type { ServerSpec } from "../src/lsp/types.js";
import { allLines } from "../src/text/lines.js";
import { npmOnboarding } from "./npm-facts.js";
import { tscCheck } from "./tsc-check.js";
import { typescriptBackend } from "./typescript-backend.js";

const require = createRequire(import.meta.url);

interface Bundled {
  cli: string;
  tsserver: string;
  serverVersion: string;
  typescriptVersion: string;
}

function bundled(): Bundled | { missing: string } {
  try {
    const serverPkg = require.resolve("typescript-language-server/package.json");
    const tsPkg = require.resolve("typescript/package.json");
    return {
      cli: join(dirname(serverPkg), "lib", "cli.mjs"),
      tsserver: join(dirname(tsPkg), "lib", "tsserver.js"),
      serverVersion: readVersion(serverPkg) ?? "unknown",
      typescriptVersion: readVersion(tsPkg) ?? "unknown",
    };
  } catch {
    return {
      missing:
        "typescript-language-server or typescript is not installed next to scalpel; reinstall scalpel.",
    };
  }
}

function readVersion(pkgJson: string): string | undefined {
  try {
    const v: unknown = JSON.parse(readFileSync(pkgJson, "utf8")).version;
    return typeof v === "string" ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The project's own TypeScript 5.x is preferred: its diagnostics then match the project's `tsc`
 * (lib and syntax support follow the installed compiler). Other majors fall back to the bundled
 * 5.9.3: 4.x tsservers lack protocol features tsls 5.3 relies on, and TypeScript 7 ships no
 * tsserver.js at all.
 */
function projectTsserver(root: string, file = join("lib", "tsserver.js")): string | undefined {
  const pkg = join(root, "node_modules", "typescript", "package.json");
  const server = join(root, "node_modules", "typescript", file);
  if (!existsSync(pkg) || !existsSync(server)) return undefined;
  return readVersion(pkg)?.startsWith("5.") ? server : undefined;
}

/** The whole-project check runs the same compiler as the server, by the same rule. */
const projectTsc = (root: string) =>
  projectTsserver(root, join("bin", "tsc")) ?? require.resolve("typescript/bin/tsc");

/**
 * An untrusted project's `node_modules/typescript` is the repository's code like any other: a
 * cloned repo can ship a `lib/tsserver.js` (or `bin/tsc`) that does anything when run. Only the
 * bundled compiler runs for it. The bundled tsserver also keeps the repository's tsserver plugins
 * out: tsserver looks for the plugins a tsconfig names next to its own install (`../../..` of
 * tsserver.js) unless `--allowLocalPluginLoads`, which tsls does not pass.
 */
const bundledTsc = () => require.resolve("typescript/bin/tsc");

const languageIds: Record<string, string> = {
  ".ts": "typescript",
  ".mts": "typescript",
  ".cts": "typescript",
  ".tsx": "typescriptreact",
  ".js": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
  ".jsx": "javascriptreact",
};

function spec(root: string, trusted: boolean): ServerSpec | { missing: string } {
  const b = bundled();
  if ("missing" in b) return b;
  return {
    id: "typescript",
    // Run with our own Node: no PATH lookup, and the bundled CLI works on every supported platform.
    launch: { command: process.execPath, args: [b.cli, "--stdio"] },
    // tsls 5.3.0 works through a `node …/tsserver.js` child; SIGKILLed, the wrapper stayed up,
    // started none again and answered references with `[]`: the session watches that child.
    // Watching it is cheap (measured on tsls 5.3.0 + tsserver 5.9.3, 3 processes, ~20 threads):
    // one walk of the tree 0.3 ms, one state read of an adopted process a few µs.
    essentialProcesses: [{ name: "tsserver", commandLine: /tsserver\.js(\s|$)/ }],
    initializationOptions: {
      tsserver: {
        // tsls 5.3.0 uses this path whenever it exists, and only otherwise looks in the workspace
        // (node_modules/typescript/lib, .yarn/sdks/…): always setting it keeps an untrusted
        // repository's copy out.
        path: (trusted ? projectTsserver(root) : undefined) ?? b.tsserver,
        // With "auto", requests made while the project loads go to a syntax-only server and come
        // back silently partial (references 1 of 265 on date-fns). "never" makes them wait instead.
        useSyntaxServer: "never",
        // tsserver's own watcher reported a dependency changed on disk 1–2 s late: diagnostics
        // asked for meanwhile came back empty and settled (first publish after a re-check of the
        // dependent file was the stale empty set, the error 150 ms later). With client watching,
        // tsls registers `{baseUri: <root>, pattern: "**/*"}` (plus tsserver's watched dirs
        // outside the root) and scalpel announces every change before it asks: the first publish
        // after the announcement carried the error. Needs TypeScript ≥ 5.4.4 (tsls falls back
        // to tsserver's watching for an older project-local tsserver).
        useClientFileWatcher: true,
      },
      // ATA runs npm and writes to the user's cache; off, tsls also runs 2 processes instead of 4.
      disableAutomaticTypingAcquisition: true,
      maxTsServerMemory: 3072,
      hostInfo: "scalpel",
      preferences: {
        // Renaming `{ foo }` must become `{ foo: bar }`, not `{ bar }` that changes the object shape.
        providePrefixAndSuffixTextForRename: true,
        allowRenameOfImportPath: false,
        quotePreference: "auto",
        importModuleSpecifierPreference: "shortest",
        includeCompletionsForModuleExports: false,
      },
    },
    didChangeConfigurationSettings: {
      // Without this a change that keeps a clean file clean publishes nothing at all (tsls skips
      // empty→empty updates), so a waiter could not tell "checked, still clean" from "not checked".
      diagnostics: { eagerClear: true },
    },
    // tsls asks for `formattingOptions` for every opened file.
    configuration: (section) => (section === "formattingOptions" ? { tabSize: 2, insertSpaces: true } : null),
    // tsls reports nothing until the first didOpen makes tsserver load the project; its
    // "Initializing JS/TS language features…" progress then began 21 ms after the didOpen with a
    // warm tsserver and 270–400 ms after it when the didOpen followed initialize at once (tsserver
    // still booting); it lasted 0.8–1.6 s for 300 files. The first-open window ends as soon as the
    // progress begins, so its length costs nothing in the normal case. tsserver reports that
    // progress only to a client that declares window.workDoneProgress (the generic client does).
    readiness: { waitForProgress: true, settleMs: 300, firstOpenSettleMs: 2_000, maxWaitMs: 60_000 },
    languageIdFor: (ext) => languageIds[ext] ?? "typescript",
    // Push only (`textDocument/diagnostic` → -32601), with no "done" signal: tsserver published an
    // empty set and then the errors up to half a second later, so pushes are waited for until quiet.
    diagnostics: "push",
    // tsls re-checks an opened/changed file after clamp(lines / 20, 300, 800) ms (its
    // `requestDiagnostic`); what comes sooner is the empty eagerClear set (observed at +2 ms, the
    // real publish at +360 ms on a 12-line file). A margin below the debounce absorbs timer jitter.
    diagnosticsDelayMs: (text) => Math.min(Math.max(Math.ceil(lineCount(text) / 20), 300), 800) - 50,
    checkFile: checkFileNow,
    requestTimeoutMs: 30_000,
  };
}

/** tsserver's protocol diagnostic (1-based line/offset, offsets in UTF-16 code units). */
interface TsDiagnostic {
  start: { line: number; offset: number };
  end: { line: number; offset: number };
  text: string;
  code?: number;
  category: string;
  source?: string;
  relatedInformation?: { message: string; span?: { file: string; start: TsLocation; end: TsLocation } }[];
}
type TsLocation = { line: number; offset: number };

const tsPosition = (l: TsLocation) => ({ line: l.line - 1, character: l.offset - 1 });
const tsSeverity: Record<string, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  suggestion: DiagnosticSeverity.Hint,
  message: DiagnosticSeverity.Information,
};

/**
 * The diagnostics tsls would publish for a file (syntactic, semantic, suggestions, converted the
 * way tsls 5.3.0 converts them), asked of tsserver directly with its `*DiagnosticsSync` requests
 * through `typescript.tsserverRequest`. Pushes need no waiting for: tsserver brings the project up
 * to date with every change and watch event sent before the request, then answers. Measured on zod
 * 3.25.76 `src/v3/types.ts` (5,136 lines) after a dependency changed: the pushed sets came as
 * syntactic (empty, +1.2 s) then semantic (32 errors, +5.9 s) with no end signal, so a quiet
 * period settled on the empty set; this check answered the 32 errors in one request.
 */
async function checkFileNow(
  run: Parameters<NonNullable<ServerSpec["checkFile"]>>[0],
  uri: string,
  opts: Parameters<NonNullable<ServerSpec["checkFile"]>>[2],
): Promise<Diagnostic[]> {
  const out: Diagnostic[] = [];
  for (const command of [
    "syntacticDiagnosticsSync",
    "semanticDiagnosticsSync",
    "suggestionDiagnosticsSync",
  ]) {
    const res = await run<{ body?: TsDiagnostic[] } | null>(
      "typescript.tsserverRequest",
      [command, { file: uri, includeLinePosition: false }],
      opts,
    );
    for (const d of res?.body ?? []) {
      const related = (d.relatedInformation ?? []).flatMap((r) =>
        r.span
          ? [
              {
                location: {
                  uri: pathToFileURL(r.span.file).href,
                  range: { start: tsPosition(r.span.start), end: tsPosition(r.span.end) },
                },
                message: r.message,
              },
            ]
          : [],
      );
      out.push({
        range: { start: tsPosition(d.start), end: tsPosition(d.end) },
        message: d.text,
        severity: tsSeverity[d.category] ?? DiagnosticSeverity.Error,
        ...(d.code === undefined ? {} : { code: d.code }),
        source: d.source ?? "typescript",
        ...(related.length > 0 ? { relatedInformation: related } : {}),
      });
    }
  }
  return out;
}

function lineCount(text: string): number {
  let n = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

async function probe(): Promise<ServerProbe> {
  const b = bundled();
  if ("missing" in b) return { found: false, hint: b.missing };
  return {
    found: true,
    command: "typescript-language-server (bundled)",
    version: `typescript-language-server ${b.serverVersion}, typescript ${b.typescriptVersion}`,
  };
}

/**
 * tsserver's navigation tree names functions and classes that have no name of their own:
 * `xs.map() callback`, `forEach() callback`, `describe("parse") callback` (string arguments are
 * quoted into the name), `<function>` (IIFE, computed callee), `<class>` (class expression). No
 * identifier can contain a space or `<`, so these names never belong to a declared symbol.
 */
const CALLBACK = / callback$/;

/** An IIFE (`<function>`, often a whole module's wrapper) or a class expression (`<class>`). */
const UNNAMED_WRAPPER = /^<(?:function|class|unknown)>$/;

/**
 * Marks callbacks passed as arguments `anonymous`: the symbol tree drops them with all they declare
 * (src/symbols/tree.ts). An IIFE or class expression is dropped but what it declares is kept, one
 * level up: a UMD wrapper's functions are the module's, `const Foo = class { m() {} }` has `Foo/m`.
 * Restores source order: tsserver sorts children by name.
 */
export function normalizeTypescriptSymbols(symbols: DocumentSymbol[]): NormalizedSymbol[] {
  const out: NormalizedSymbol[] = [];
  for (const sym of symbols) {
    if (CALLBACK.test(sym.name)) {
      out.push({ ...sym, anonymous: true });
      continue;
    }
    const children = sym.children ? normalizeTypescriptSymbols(sym.children) : undefined;
    if (UNNAMED_WRAPPER.test(sym.name)) {
      if (children) out.push(...children);
    } else {
      out.push(children ? { ...sym, children } : sym);
    }
  }
  return out.sort(
    (a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character,
  );
}

/**
 * tsserver's range for `export const X = 1;` covers only the declarator `X = 1` (observed on 5.9):
 * replacing or deleting that range would leave `export const ;` behind. A declarator that is the
 * only one of its statement gets the statement's range: keywords before it, the `;` after it.
 */
const declarationKeywords = /^\s*(?:(?:export|declare|default)\s+)*(?:const|let|var|using)\s+$/;

export function widenDeclarations(symbols: DocumentSymbol[], lines: readonly string[]): DocumentSymbol[] {
  return symbols.map((sym) => {
    const children = sym.children ? widenDeclarations(sym.children, lines) : undefined;
    let out = children ? { ...sym, children } : sym;
    if (sym.kind === SymbolKind.Variable || sym.kind === SymbolKind.Constant) {
      const { start, end } = sym.range;
      const before = (lines[start.line] ?? "").slice(0, start.character);
      const after = (lines[end.line] ?? "").slice(end.character);
      const tail = /^\s*;?\s*(?:\/\/.*)?$/.exec(after);
      if (declarationKeywords.test(before) && tail) {
        const semi = after.indexOf(";");
        out = {
          ...out,
          range: {
            start: { line: start.line, character: before.length - before.trimStart().length },
            end: { line: end.line, character: semi >= 0 ? end.character + semi + 1 : end.character },
          },
        };
      }
    }
    return out;
  });
}

/**
 * typescript-language-server 5.3.0 maps tsserver's kind `type` (a `type X = …` alias) to no
 * SymbolKind, so it falls back to Variable. Reported as `TypeParameter` instead, the kind
 * rust-analyzer gives its type aliases (LSP has no TypeAlias kind): the declaration's own text
 * tells, since its range starts at `export`/`declare` or at `type`.
 */
const typeAliasStart = /^(?:(?:export|declare|default)\s+)*type\s+([\p{L}\p{N}_$]+)/u;

export function markTypeAliases<T extends DocumentSymbol>(symbols: T[], lines: readonly string[]): T[] {
  return symbols.map((sym) => {
    const children = sym.children ? markTypeAliases(sym.children as T[], lines) : undefined;
    const out = children ? { ...sym, children } : sym;
    if (sym.kind !== SymbolKind.Variable) return out;
    const { start } = sym.range;
    const alias = typeAliasStart.exec((lines[start.line] ?? "").slice(start.character));
    return alias?.[1] === sym.name ? { ...out, kind: SymbolKind.TypeParameter } : out;
  });
}

/**
 * Measured with tsls 5.3.0 / tsserver 5.9.3: a symbol's range starts at its first decorator
 * (`@deco` above a class or method, `@deco @deco` on one line) or at `export`, never at the JSDoc
 * or `//` lines above it. Those are the head. `#` is not a comment here (`#private` fields).
 */
export const typescriptDeclarations: DeclarationSyntax = {
  lineComments: ["//"],
  blockComments: [["/*", "*/"]],
  docComments: ["/**"],
  quotes: ["`", '"', "'"],
  attributes: ["@"],
  indentUnit: "  ",
};

interface ProjectInfoResponse {
  body?: { configFileName?: string; fileNames?: string[] };
}

/**
 * tsserver's own `projectInfo`, through tsls 5.3.0's `typescript.tsserverRequest` command, given
 * the file's path: tsls maps an open document's URI to its path but passes anything else on as is,
 * so a URI works only while the file is open, a path for any file of a loaded project. Measured: a
 * file of a tsconfig answers `configFileName: <abs>/tsconfig.json`; a file outside every tsconfig
 * answers `/dev/null/inferredProject1*` (an inferred project with default options); with
 * `needFileNameList` the body lists every file of the project, lib .d.ts files included.
 */
export const inferredNote =
  "outside every tsconfig: checked as an inferred project with default options — errors such as implicit any may be noise";

const askProject: AskProject = async (server, file, opts) => {
  const { listFiles, ...request } = opts;
  const res = await server.executeCommand<ProjectInfoResponse | null>(
    "typescript.tsserverRequest",
    ["projectInfo", { file: file.abs, needFileNameList: listFiles }],
    request,
  );
  const name = res?.body?.configFileName;
  const config = name && !name.startsWith("/dev/null/") ? name : null;
  const files = listFiles && res?.body?.fileNames ? { files: res.body.fileNames } : {};
  return config ? { config, ...files } : { config, ...files, note: inferredNote };
};

/**
 * The folders a tsconfig compiles into (`outDir`, `declarationDir`), relative to it. Comments are
 * dropped first: `tsc --init` writes a commented-out `// "outDir": "./"`. `extends` is not followed.
 */
export function tsconfigOutDirs(text: string): string[] {
  const code = text.replace(/("(?:[^"\\\n]|\\.)*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (_m, str) => str ?? "");
  return [...code.matchAll(/"(?:outDir|declarationDir)"\s*:\s*"([^"]+)"/g)].map((m) => m[1]!);
}

function typescriptAdapterFor(trusted: boolean): LanguageAdapter {
  return {
    ...typescriptCommon,
    spec: (root) => spec(root, trusted),
    projectCheck: tscCheck(trusted ? projectTsc : bundledTsc),
    untrusted: () => typescriptAdapterFor(false),
  };
}

/** What both TypeScript backends share (the native one overrides its server-specific parts). */
export const typescriptCommon: Omit<LanguageAdapter, "spec" | "untrusted"> = {
  id: "typescript",
  displayName: "TypeScript / JavaScript",
  extensions: [".ts", ".tsx", ".js", ".jsx", ".mts", ".cts"],
  otherSourceExtensions: [".mjs", ".cjs"],
  ignoredDirs: ["node_modules", "dist", "build"],
  dependencyDirs: ["node_modules"],
  outputs: { manifests: ["tsconfig.json"], dirs: tsconfigOutDirs },
  // Jest/Vitest/Mocha conventions, and date-fns' `src/<fn>/test.ts` beside each function.
  testFiles: ["*.test.*", "*.spec.*", "test.*", "__tests__/", "test/", "tests/"],
  // tsserver is the only checker of TypeScript files and names every diagnostic "typescript"
  // (TS7 native: "ts"): 22 characters each, 198 of the 2,744 of the token benchmark's
  // signature-change answer on rxjs.
  soleDiagnosticSources: ["typescript", "ts"],
  probe,
  normalizeSymbols: (symbols, text) => {
    const lines = allLines(text);
    return markTypeAliases(widenDeclarations(normalizeTypescriptSymbols(symbols), lines), lines);
  },
  declarations: typescriptDeclarations,
  // A `#name` is an ECMAScript private member: `#b` is a valid new name for `#a`.
  identifier: /^#?[\p{L}\p{Nl}_$][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}_$]*$/u,
  nameVisibility: (name) => (name.startsWith("#") ? "private (#name)" : "not #private"),
  project: { ask: askProject },
  onboarding: npmOnboarding,
  doctorNote: async (root, config) => {
    const chosen = config.typescript_backend;
    const ts = typescriptBackend(root, chosen === "native" || chosen === "tsserver" ? chosen : undefined);
    return `TypeScript backend ${ts.backend} (${ts.why})`;
  },
  // Untrusted, both backends run scalpel's bundled compiler, never the repository's copy.
  trustEnables: (root) =>
    existsSync(join(root, "node_modules", "typescript", "package.json"))
      ? "use the project's own TypeScript (node_modules/typescript) instead of scalpel's bundled one"
      : null,
};

/** The adapter for a trusted project (the project's own TypeScript 5.x when it has one). */
export const typescriptAdapter: LanguageAdapter = typescriptAdapterFor(true);
