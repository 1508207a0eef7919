/**
 * The Dart analysis server (`dart language-server --protocol=lsp`). The Dart SDK could not be
 * installed on the machines this was written on, so its quirks are taken from the server's LSP
 * documentation (dart-lang/sdk `pkg/analysis_server/tool/lsp_spec/README.md`), and unit-tested
 * against those message shapes; the e2e test runs whenever `dart` is on PATH.
 */
import { realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import type { DocumentSymbol } from "vscode-languageserver-protocol";
import type { LanguageAdapter, ServerProbe } from "../src/languages/adapter.js";
import type { DeclarationSyntax } from "../src/languages/declaration.js";
import type { ServerSpec } from "../src/lsp/types.js";
import { runVersion } from "../src/process/probe.js";
import { pubspecOnboarding } from "./pubspec-facts.js";
import { which } from "./which.js";

export const dartInstallHint =
  "Install the Dart SDK (https://dart.dev/get-dart) or Flutter (https://docs.flutter.dev/get-started/install) " +
  "and put `dart` (or `flutter`) on PATH, or set SCALPEL_DART to the dart binary.";

/**
 * `dart` from SCALPEL_DART, PATH, or the Flutter SDK: `flutter` on PATH means `<flutter>/bin/dart`
 * exists next to it (Flutter ships its own Dart SDK; realpath because `flutter` is often a symlink).
 */
export function findDart(
  env: NodeJS.ProcessEnv = process.env,
): { command: string; from: string } | undefined {
  if (env.SCALPEL_DART) {
    const explicit = which(env.SCALPEL_DART, env.PATH ?? "");
    return explicit ? { command: explicit, from: "SCALPEL_DART" } : undefined;
  }
  const dart = which("dart", env.PATH ?? "");
  if (dart) return { command: dart, from: "PATH" };
  const flutter = which("flutter", env.PATH ?? "");
  if (flutter) {
    let real = flutter;
    try {
      real = realpathSync(flutter);
    } catch {
      // keep the PATH entry
    }
    const bundled = which(join(dirname(real), "dart"));
    if (bundled) return { command: bundled, from: "Flutter SDK" };
  }
  return undefined;
}

function spec(_root: string): ServerSpec | { missing: string } {
  const dart = findDart();
  if (!dart) return { missing: `The Dart SDK was not found. ${dartInstallHint}` };
  return {
    id: "dart",
    launch: { command: dart.command, args: ["language-server", "--protocol=lsp", "--client-id", "scalpel"] },
    initializationOptions: {
      // Analyse the whole workspace folder, not only projects of open files: references and
      // rename must see every file.
      onlyAnalyzeProjectsWithOpenFiles: false,
      // Editor-only features that cost analysis time and messages scalpel ignores.
      suggestFromUnimportedLibraries: false,
      closingLabels: false,
      outline: false,
      flutterOutline: false,
    },
    configuration: (section) => (section === "dart" ? { showTodos: false, enableSdkFormatter: false } : null),
    // (Symbol ranges collapse to the identifier unless the client declares
    // hierarchicalDocumentSymbolSupport, which the generic client capabilities do.)
    // Docs: `$/analyzerStatus` `{ isAnalyzing: boolean }` is sent only when the client does not
    // declare window.workDoneProgress; scalpel declares it, so analysis arrives as `$/progress`.
    // The rule honours both: ready when neither says analysis is running and 500 ms passed
    // without either signal.
    readiness: {
      waitForProgress: true,
      status: { method: "$/analyzerStatus", busy: (p) => p.isAnalyzing === true },
      settleMs: 500,
      maxWaitMs: 120_000,
    },
    languageIdFor: () => "dart",
    // The docs list textDocument/publishDiagnostics only (no textDocument/diagnostic).
    diagnostics: "push",
    requestTimeoutMs: 60_000,
  };
}

async function probe(): Promise<ServerProbe> {
  const dart = findDart();
  if (!dart) return { found: false, hint: dartInstallHint };
  const v = await runVersion(dart.command, ["--version"]);
  return v.ok
    ? { found: true, command: `${dart.command} (${dart.from})`, version: v.output }
    : { found: false, hint: `${dart.command} (${dart.from}) does not run (${v.error}). ${dartInstallHint}` };
}

/**
 * Member names may arrive qualified with their type (`Foo.bar`, named constructors `Foo.named`);
 * the name path already holds `Foo`, so the qualifier is dropped when it names the parent (at the
 * top level, extension members keep theirs: there is no parent to carry it).
 */
export function normalizeDartSymbols(
  symbols: DocumentSymbol[],
  parent: string | null = null,
): DocumentSymbol[] {
  return symbols
    .map((sym) => {
      let name = sym.name;
      const dot = name.lastIndexOf(".");
      if (parent !== null && dot > 0 && name.slice(0, dot) === parent) name = name.slice(dot + 1);
      const children = sym.children ? normalizeDartSymbols(sym.children, sym.name) : undefined;
      const out: DocumentSymbol = { ...sym, name };
      if (children) out.children = children;
      return out;
    })
    .sort(
      (a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character,
    );
}

/**
 * Not measured (no Dart SDK here); from the server's source: a DocumentSymbol's `range` is the
 * outline's code range, which starts at `firstTokenAfterCommentAndMetadata`, after the `///` doc
 * comment and after annotations such as `@override` (pkg/analysis_server computer_outline.dart,
 * handler_document_symbols.dart). Both are the head; `@override void f()` on one line works too.
 */
export const dartDeclarations: DeclarationSyntax = {
  lineComments: ["//"],
  blockComments: [["/*", "*/"]],
  docComments: ["///", "/**"],
  quotes: ["'''", '"""', "'", '"'],
  attributes: ["@"],
  indentUnit: "  ",
};

/**
 * The analysis server runs the analyzer plugins a project's `analysis_options.yaml` names (code
 * from its packages, path dependencies inside the repository included), and its docs list no
 * setting that turns them off. So for a project the user has not trusted it is not started.
 */
const untrustedDart =
  "The Dart analysis server is not started for a project you have not trusted: it runs the analyzer plugins the project's analysis_options.yaml names (code from the repository). To trust it, run `scalpel trust` in the project's directory.";

function dartAdapterFor(trusted: boolean): LanguageAdapter {
  return {
    id: "dart",
    displayName: "Dart (analysis server)",
    extensions: [".dart"],
    ignoredDirs: [".dart_tool", "build"],
    outputs: { manifests: ["pubspec.yaml"], dirs: () => [".dart_tool", "build"] },
    spec: trusted ? spec : () => ({ missing: untrustedDart }),
    probe,
    normalizeSymbols: (symbols) => normalizeDartSymbols(symbols),
    declarations: dartDeclarations,
    // A leading underscore makes a name private to its library.
    nameVisibility: (name) => (name.startsWith("_") ? "private to its library (_)" : "public"),
    onboarding: pubspecOnboarding,
    untrusted: () => dartAdapterFor(false),
    trustEnables: () => "start the Dart analysis server (it runs the project's analyzer plugins)",
  };
}

export const dartAdapter: LanguageAdapter = dartAdapterFor(true);
