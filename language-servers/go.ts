/**
 * gopls (measured with gopls v0.23.0 built by Go 1.26, `go install golang.org/x/tools/gopls@v0.23.0`).
 * Behaviour observed on that version is noted next to each setting.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import { type DocumentSymbol, SymbolKind } from "vscode-languageserver-protocol";
import type { LanguageAdapter, ServerProbe } from "../src/languages/adapter.js";
import type { DeclarationSyntax } from "../src/languages/declaration.js";
import type { NormalizedSymbol } from "../src/languages/normalized-symbol.js";
import type { ServerSpec } from "../src/lsp/types.js";
import { type Candidate, firstRunning, type Running, runVersion } from "../src/process/probe.js";
import { allLines } from "../src/text/lines.js";
import { goModOnboarding } from "./go-mod-facts.js";

export const goInstallHint =
  "Install gopls: `go install golang.org/x/tools/gopls@v0.23.0` (needs Go, https://go.dev/dl/; it lands in " +
  "$GOPATH/bin, usually ~/go/bin), or set SCALPEL_GOPLS to a gopls binary.";

/** Where a working gopls is looked for, in order: `go install` puts it in $GOBIN, else $GOPATH/bin. */
export function goplsCandidates(env: NodeJS.ProcessEnv = process.env): Candidate[] {
  if (env.SCALPEL_GOPLS) return [{ command: env.SCALPEL_GOPLS, from: "SCALPEL_GOPLS" }];
  const out = [{ command: "gopls", from: "PATH" }];
  if (env.GOBIN) out.push({ command: join(env.GOBIN, "gopls"), from: "GOBIN" });
  // GOPATH may list several directories; `go install` uses the first.
  const gopath = env.GOPATH?.split(":")[0];
  if (gopath) out.push({ command: join(gopath, "bin", "gopls"), from: "GOPATH/bin" });
  out.push({ command: join(homedir(), "go", "bin", "gopls"), from: "~/go/bin" });
  return out;
}

/** The first candidate that answers `gopls version`. */
export function findGopls(): Running | { missing: string } {
  const found = firstRunning(goplsCandidates(), ["version"]);
  if ("command" in found) return found;
  return { missing: `gopls is not installed or does not run (${found.tried.join("; ")}). ${goInstallHint}` };
}

/**
 * For a project the user has not trusted. gopls itself runs no code of the repository: it loads
 * packages with `go list` (go/packages), which reads sources and go.mod; `go generate`, tests and
 * the `gopls.*` commands that build run only when a client asks, and scalpel never does. What
 * the `go` command could still be steered into by the repository is shut off here:
 * - GOTOOLCHAIN=local: a go.mod `toolchain go1.x` line (or `go` line newer than the local Go)
 *   otherwise makes `go` download and run that toolchain, a binary the repository chose.
 * - CGO_ENABLED=0: for packages with `import "C"`, `go list -compiled` runs cgo, which runs the C
 *   compiler with `#cgo` flags written in the sources. Go allows only a list of safe flags, and
 *   that list has been bypassed before (CVE-2018-6574 `-fplugin`, CVE-2023-29404 LDFLAGS). cgo files
 *   are then left out of the load (their symbols are missing), the price of not running a
 *   stranger's build.
 * - GOFLAGS=-mod=readonly: a user's `GOFLAGS=-mod=mod` would let loading rewrite the repository's
 *   go.mod/go.sum; readonly reports what is missing instead. (Modules named by go.mod may still
 *   be downloaded into the module cache; downloading runs none of their code.)
 */
const untrustedGoEnv = { GOTOOLCHAIN: "local", CGO_ENABLED: "0", GOFLAGS: "-mod=readonly" };

/** gopls reads its settings from `workspace/configuration` section `gopls`. */
const goplsSettings = {
  // Code lenses and inlay hints are editor features scalpel never shows.
  codelenses: { generate: false, regenerate_cgo: false, run_govulncheck: false, test: false, tidy: false },
  // No anonymous usage counters or prompts from a headless server.
  telemetryPrompt: false,
  // Hovers end with a "[`(store.Book).Price` on pkg.go.dev](https://pkg.go.dev/…)" line by default
  // (measured, v0.23.0): navigation for an editor, noise in get_type_info. Doc links (`[PerPage]`)
  // stay; their targets are dropped with the rest of the markdown.
  linksInHover: false,
};

function spec(_root: string, trusted: boolean): ServerSpec | { missing: string } {
  const found = findGopls();
  if ("missing" in found) return found;
  return {
    id: "go",
    launch: { command: found.command, args: [], env: trusted ? {} : untrustedGoEnv },
    configuration: (section) => (section === "gopls" || section === undefined ? goplsSettings : null),
    // Measured with v0.23.0: gopls loads the workspace (`go list ./...`: 0.3 s on
    // test/fixtures/go-basic, 4.5 s on gopls's own module) before it answers requests that need
    // packages, which wait inside gopls meanwhile. It asks for a workDoneProgress token at start
    // but sent no `$/progress` for that load on either module, so there is nothing to wait for
    // here; the short settle honours a progress a later version may send.
    readiness: { waitForProgress: true, settleMs: 300, firstOpenSettleMs: 300, maxWaitMs: 120_000 },
    languageIdFor: () => "go",
    // gopls v0.23.0 does not announce diagnosticProvider and answers a `textDocument/diagnostic`
    // with `{ kind: "" }`: it publishes instead, after each change (its `diagnosticsDelay`, 1 s
    // by default, then the analyzers' results in a second publish).
    diagnostics: "push",
    requestTimeoutMs: 60_000,
  };
}

async function probe(): Promise<ServerProbe> {
  const found = findGopls();
  if ("missing" in found) return { found: false, hint: found.missing };
  const v = await runVersion(found.command, ["version"]);
  return { found: true, command: `${found.command} (${found.from})`, version: v.output || found.version };
}

const typeKinds = new Set<SymbolKind>([SymbolKind.Struct, SymbolKind.Interface, SymbolKind.Class]);

/**
 * The receiver type of a gopls method symbol: gopls v0.23.0 lists methods flat, at the top level,
 * named `(*Cart).Add` / `(Cart).Total` (generic receivers as `(*List[T]).Push`), kind Method.
 */
export function receiverOf(name: string): { type: string; receiver: string; method: string } | undefined {
  const m = /^\((\*?)([A-Za-z_]\w*)(?:\[[^\]]*\])?\)\.(\w+)$/.exec(name);
  return m ? { type: m[2]!, receiver: name.slice(0, name.lastIndexOf(".")), method: m[3]! } : undefined;
}

function byPosition(a: DocumentSymbol, b: DocumentSymbol): number {
  return a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character;
}

/**
 * gopls's document symbols → name paths. Methods join their receiver type as members, so that an
 * agent writes `Cart/Total` whatever the receiver (`(*Cart)` or `(Cart)`, which stays visible in
 * `detail`); a type declared in another file of the package is stood in for by its first method
 * there, named after it. A type's range starts at its name (after `type `, measured), so it is
 * widened to the `type` keyword when the declaration stands alone on its line; replacing the body
 * then replaces the whole declaration.
 */
export function normalizeGoSymbols(symbols: DocumentSymbol[], text: string): DocumentSymbol[] {
  const lines = allLines(text);
  const out: NormalizedSymbol[] = [];
  const types = new Map<string, NormalizedSymbol>();
  const methods: Array<{ sym: DocumentSymbol; type: string; receiver: string; method: string }> = [];
  for (const sym of symbols) {
    const recv = sym.kind === SymbolKind.Method ? receiverOf(sym.name) : undefined;
    if (recv) {
      methods.push({ sym, ...recv });
      continue;
    }
    const copy: NormalizedSymbol = { ...sym, range: widenToKeyword(sym, lines) };
    out.push(copy);
    if (typeKinds.has(sym.kind) && !types.has(sym.name)) types.set(sym.name, copy);
  }
  for (const m of methods) {
    const member: NormalizedSymbol = {
      ...m.sym,
      name: m.method,
      detail: m.sym.detail ? `${m.receiver} ${m.sym.detail}` : m.receiver,
    };
    let target = types.get(m.type);
    if (!target) {
      target = {
        name: m.type,
        kind: SymbolKind.Struct,
        detail: m.receiver,
        range: m.sym.range,
        selectionRange: m.sym.selectionRange,
      };
      types.set(m.type, target);
      out.push(target);
    }
    // The method lies outside the type's range: it is kept as a part so that a position in it
    // (a reference in the method's body) finds the type and then the method.
    target.parts = [
      ...(target.parts ?? []),
      { range: m.sym.range, selectionRange: m.sym.selectionRange, detail: m.receiver },
    ];
    target.children = [...(target.children ?? []), member].sort(byPosition);
  }
  return out.sort(byPosition);
}

/** `type Cart struct {…}`: gopls's range starts at `Cart`; the declaration starts at `type`. */
function widenToKeyword(sym: DocumentSymbol, lines: readonly string[]): DocumentSymbol["range"] {
  const { start } = sym.range;
  const before = (lines[start.line] ?? "").slice(0, start.character);
  const kw = /^(\s*)(?:type|var|const)\s+$/.exec(before);
  return kw ? { start: { line: start.line, character: kw[1]!.length }, end: sym.range.end } : sym.range;
}

/**
 * Go writes docs as plain `//` lines directly above a declaration (no separate doc form), and
 * `//go:` directives the same way; gopls's ranges start after them (measured), so both are head.
 */
export const goDeclarations: DeclarationSyntax = {
  lineComments: ["//"],
  blockComments: [["/*", "*/"]],
  docComments: ["//", "/*"],
  quotes: ["`", '"', "'"],
  attributes: [],
  indentUnit: "\t",
};

function goAdapterFor(trusted: boolean): LanguageAdapter {
  return {
    id: "go",
    displayName: "Go (gopls)",
    extensions: [".go"],
    // Vendored dependencies: large, and never the code an agent edits.
    ignoredDirs: ["vendor"],
    testFiles: ["*_test.go", "testdata/"],
    spec: (root) => spec(root, trusted),
    probe,
    normalizeSymbols: normalizeGoSymbols,
    declarations: goDeclarations,
    // An upper-case first letter exports a name from its package (the Go spec's "Exported identifiers").
    nameVisibility: (name) => (/^\p{Lu}/u.test(name) ? "exported" : "unexported (package-private)"),
    // The Go module a file belongs to: the nearest go.mod up from it.
    project: { manifests: ["go.mod"] },
    onboarding: goModOnboarding,
    untrusted: () => goAdapterFor(false),
    trustEnables: () =>
      "let gopls's go command run cgo (the C compiler) and follow your GOTOOLCHAIN (a toolchain go.mod names) and GOFLAGS",
  };
}

/** The adapter for a trusted project; untrusted() pins the `go` command's environment (see above). */
export const goAdapter: LanguageAdapter = goAdapterFor(true);
