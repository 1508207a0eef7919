/**
 * typescript-language-server 5.3.0 over tsserver: how it is launched and what the adapter
 * declares. Behaviour measured on this version is recorded next to each setting; re-check when
 * either package changes. Its diagnostics (typescript-diagnostics.ts), symbol clean-up
 * (typescript-symbols.ts) and project question (typescript-project.ts) live beside it.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { LanguageAdapter, ServerProbe } from "../src/languages/adapter.js";
import type { ServerSpec } from "../src/lsp/types.js";
import { allLines } from "../src/text/lines.js";
import { npmOnboarding } from "./npm-facts.js";
import { tscCheck } from "./tsc-check.js";
import { tsconfigOutDirsApart } from "./tsconfig-apart.js";
import { typescriptBackend } from "./typescript-backend.js";
import { typescriptCodeActionCommand } from "./typescript-code-actions.js";
import { checkFileNow } from "./typescript-diagnostics.js";
import { tsserverMoves } from "./typescript-moves.js";
import { askTsserverProject } from "./typescript-project.js";
import {
  markTypeAliases,
  normalizeTypescriptSymbols,
  typescriptDeclarations,
  widenDeclarations,
} from "./typescript-symbols.js";

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
    // tsls 5.3.0 makes a folder `$TMPDIR/<32 hex digits>` for each tsserver's cancellation pipe
    // files and never removes it: one empty folder left per session (1,400 in /tmp after a day of
    // this repository's tests). Its own folder, removed with its process group.
    launch: { command: process.execPath, args: [b.cli, "--stdio"], privateTemp: true },
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
    // Measured (tsls 5.3.0, tsserver 5.9.3): with lib.ts overlaid to return a string, the check of
    // caller.ts (never opened before) answered its TS2322 in 28 ms; after the overlay was lifted, none.
    checksUnsaved: true,
    requestTimeoutMs: 30_000,
  };
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

function typescriptAdapterFor(trusted: boolean): LanguageAdapter {
  return {
    ...typescriptCommon,
    spec: (root) => spec(root, trusted),
    projectCheck: tscCheck(trusted ? projectTsc : bundledTsc),
    codeActionCommand: typescriptCodeActionCommand,
    moves: tsserverMoves,
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
  outputs: { manifests: ["tsconfig.json"], dirs: (text, at) => tsconfigOutDirsApart(text, at.abs, at.root) },
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
  project: { ask: askTsserverProject },
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
