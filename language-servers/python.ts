/**
 * pyright (measured with pyright 1.1.414, the npm package, on CPython 3.11). Behaviour observed on
 * that version is noted next to each setting.
 */
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { delimiter, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { type DocumentSymbol, SymbolKind } from "vscode-languageserver-protocol";
import type { LanguageAdapter, ServerProbe } from "../src/languages/adapter.js";
import type { DeclarationSyntax } from "../src/languages/declaration.js";
import type { LaunchCommand, ServerSpec } from "../src/lsp/types.js";
import { runVersion } from "../src/process/probe.js";
import { settingsSection } from "./custom.js";
import { pyrightCheck } from "./pyright-check.js";
import { pythonOnboarding } from "./python-facts.js";
import { which } from "./which.js";

export const pythonInstallHint =
  "Install pyright: `npm install -g pyright` or `pip install pyright` (either puts `pyright-langserver` on " +
  "PATH), or set SCALPEL_PYRIGHT to a pyright-langserver.";

const require = createRequire(import.meta.url);

/** `dir` is `root` or below it (symlinks resolved where they exist). */
function inside(dir: string, root: string): boolean {
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return resolve(p);
    }
  };
  const rel = relative(real(root), real(dir));
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/**
 * PATH as a project the user has not trusted may use it: absolute entries outside the project
 * only. A relative entry (`bin`, or the empty entry, which means `.`) is looked up from the server's
 * working directory, the project root, so `python3` would be the repository's own file.
 */
export function pathOutside(pathVar: string, root: string | undefined): string {
  return pathVar
    .split(delimiter)
    .filter((d) => d !== "" && isAbsolute(d) && (root === undefined || !inside(d, root)))
    .join(delimiter);
}

interface Found {
  launch: LaunchCommand;
  /** Shown by doctor. */
  command: string;
  from: string;
  version?: string;
}

/**
 * pyright-langserver from SCALPEL_PYRIGHT, else PATH (its absolute entries; outside the project
 * when `root` is given), else the copy installed next to scalpel (run with scalpel's own Node).
 * Never the repository's node_modules or virtualenv: `pyright-langserver` has no `--version` (it
 * exits asking for `--stdio`), so nothing is run to find it.
 */
export function findPyright(
  env: NodeJS.ProcessEnv = process.env,
  root?: string,
): Found | { missing: string } {
  const path = pathOutside(env.PATH ?? "", root);
  if (env.SCALPEL_PYRIGHT) {
    const explicit = which(env.SCALPEL_PYRIGHT, path);
    return explicit
      ? { launch: { command: explicit, args: ["--stdio"] }, command: explicit, from: "SCALPEL_PYRIGHT" }
      : { missing: `SCALPEL_PYRIGHT (${env.SCALPEL_PYRIGHT}) is not an executable. ${pythonInstallHint}` };
  }
  const onPath = which("pyright-langserver", path);
  if (onPath) return { launch: { command: onPath, args: ["--stdio"] }, command: onPath, from: "PATH" };
  try {
    const pkg = require.resolve("pyright/package.json");
    const server = join(dirname(pkg), "langserver.index.js");
    const version: unknown = JSON.parse(readFileSync(pkg, "utf8")).version;
    if (existsSync(server)) {
      return {
        launch: { command: process.execPath, args: [server, "--stdio"] },
        command: server,
        from: "installed with scalpel",
        ...(typeof version === "string" ? { version: `pyright ${version}` } : {}),
      };
    }
  } catch {
    // not installed next to scalpel (it is a development dependency)
  }
  return { missing: `pyright-langserver was not found on PATH. ${pythonInstallHint}` };
}

/** pyright asks `workspace/configuration` for the sections `python` and `pyright`. */
const pyrightSettings = {
  python: {
    analysis: {
      // The default, stated: only open files are checked and published (diagnostics are asked per
      // file); "workspace" checked and published all 62 files of a copy of asyncio + email (5 s).
      diagnosticMode: "openFilesOnly",
      autoSearchPaths: true,
      useLibraryCodeForTypes: true,
    },
  },
  pyright: { disableOrganizeImports: true },
};

function spec(root: string, trusted: boolean): ServerSpec | { missing: string } {
  const found = findPyright(process.env, trusted ? undefined : root);
  if ("missing" in found) return found;
  return {
    id: "python",
    launch: {
      ...found.launch,
      // The interpreter pyright runs: see the note on `pythonAdapterFor` below.
      ...(trusted ? {} : { env: { PATH: pathOutside(process.env.PATH ?? "", root) } }),
    },
    configuration: (section) => settingsSection(pyrightSettings, section),
    // Measured on the fixture and on a copy of asyncio + email (62 files): pyright sent no
    // `$/progress` at start, on opening files or on requests (it asks for a workDoneProgress token
    // with each diagnostics pull but began none). Its one signal is the log line "Found N source
    // files" (or "No source files found") once it has listed the workspace, 400 ms after
    // `initialized` on the fixture: a references request sent before it searched only the open
    // files and came back as a whole answer with one site of four (a clean-clone CI run, under
    // load, with find_symbol sent in parallel). So requests wait for that line.
    readiness: {
      status: {
        method: "window/logMessage",
        busy: (p) =>
          typeof p.message === "string" && /^(Found \d+ source files?|No source files found)/.test(p.message)
            ? false
            : undefined,
        initiallyBusy: true,
      },
      maxWaitMs: 60_000,
    },
    languageIdFor: () => "python",
    // pyright 1.1.414 does not announce diagnosticProvider, yet answers `textDocument/diagnostic`
    // with a full report that describes the text as of the last change, right away (100 ms after a
    // didChange; 60 ms after a dependency changed on disk and was announced): no wait for pushes.
    // It also publishes for open files; should a later version drop the pull, push takes over.
    diagnostics: "pull",
    requestTimeoutMs: 60_000,
  };
}

/**
 * pyright's CLI for the whole-project check: the one installed with the language server (both the
 * npm and the pip package put `pyright` beside `pyright-langserver`), else `pyright` on PATH, so
 * that a missing one is reported as not installed. The environment is the server's.
 */
function pyrightCli(root: string, trusted: boolean): LaunchCommand {
  const found = findPyright(process.env, trusted ? undefined : root);
  const env = trusted ? {} : { env: { PATH: pathOutside(process.env.PATH ?? "", root) } };
  if (!("missing" in found)) {
    if (found.launch.command === process.execPath) {
      return { command: process.execPath, args: [join(dirname(found.command), "index.js")], ...env };
    }
    const beside = join(dirname(found.command), "pyright");
    if (existsSync(beside)) return { command: beside, args: [], ...env };
  }
  return { command: "pyright", args: [], ...env };
}

async function probe(root?: string): Promise<ServerProbe> {
  const found = findPyright(process.env, root);
  if ("missing" in found) return { found: false, hint: found.missing };
  if (found.version)
    return { found: true, command: `${found.command} (${found.from})`, version: found.version };
  // `pyright --version` sits next to `pyright-langserver` in both the npm and the pip package.
  const cli = join(dirname(found.command), "pyright");
  const v = existsSync(cli) ? await runVersion(cli, ["--version"]) : undefined;
  return {
    found: true,
    command: `${found.command} (${found.from})`,
    version: v?.ok ? v.output : "unknown (pyright-langserver has no --version)",
  };
}

const callables = new Set<SymbolKind>([SymbolKind.Function, SymbolKind.Method, SymbolKind.Constructor]);
const variables = new Set<SymbolKind>([SymbolKind.Variable, SymbolKind.Constant]);

function byPosition(a: DocumentSymbol, b: DocumentSymbol): number {
  return a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character;
}

/**
 * pyright's document symbols → name paths. Methods are already children of their class
 * (`Cart/total`). Measured: a function's children include its parameters and local variables
 * (kind Variable), which are dropped (not declarations an agent addresses; nested functions and
 * classes stay); a class's instance attributes (`self.items = …` in `__init__`) are children of the
 * class after its methods, named at their first assignment: kept, and put back in source order.
 */
export function normalizePythonSymbols(symbols: DocumentSymbol[], inCallable = false): DocumentSymbol[] {
  return symbols
    .filter((s) => !(inCallable && variables.has(s.kind)))
    .map((s) => {
      if (!s.children) return s;
      return { ...s, children: normalizePythonSymbols(s.children, callables.has(s.kind)) };
    })
    .sort(byPosition);
}

/**
 * Measured: a decorated function's or class's range starts at its first `@decorator`, never at the
 * `#` comments above it; the docstring is the first statement of the body, so it is part of the body
 * (replacing a body replaces its docstring). `#:` is Sphinx's doc comment for attributes.
 */
export const pythonDeclarations: DeclarationSyntax = {
  lineComments: ["#"],
  blockComments: [],
  docComments: ["#:"],
  quotes: ['"""', "'''", '"', "'"],
  attributes: ["@"],
  indentUnit: "    ",
};

/**
 * For a project the user has not trusted. pyright runs no code of the repository itself: it reads
 * sources, stubs and its config (pyrightconfig.json / pyproject.toml), and has no plug-ins. It runs
 * one program: a Python interpreter, `python3` (else `python`) looked up on PATH (or the client's
 * `python.pythonPath`, which scalpel never sets), with the project root as working directory, to ask
 * for the import search paths and the Python version (strace -f -e trace=execve: four runs at
 * start; `-c` scripts that drop the working directory from sys.path before importing anything).
 * A virtualenv named by the config (`venvPath` + `venv`) is only searched for `site-packages`
 * folders: a `.venv/bin/python` that writes a marker was not run for being named there (it was run
 * when PATH led to it, as an activated virtualenv does). So what is
 * pinned is where that interpreter comes from: PATH without relative entries (the empty entry is
 * `.`), which would resolve inside the repository, and without directories inside the project (an
 * activated repository virtualenv may hold any file as `bin/python3`). Interpreter shims (pyenv,
 * asdf) on PATH stay: they are the user's programs, and pick an installed interpreter by the
 * repository's `.python-version`.
 */
function pythonAdapterFor(trusted: boolean): LanguageAdapter {
  return {
    id: "python",
    displayName: "Python (pyright)",
    extensions: [".py", ".pyi"],
    // Windows GUI scripts and Cython sources: code, but pyright does not open them.
    otherSourceExtensions: [".pyw", ".pyx", ".pxd"],
    ignoredDirs: [".venv", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox", ".nox"],
    dependencyDirs: [".venv", "__pycache__", ".tox", ".nox"],
    outputs: { manifests: ["pyproject.toml", "setup.py", "setup.cfg"], dirs: () => ["build", "dist"] },
    testFiles: ["test_*.py", "*_test.py", "conftest.py", "tests/", "test/"],
    // pyright's diagnostics (pulled, published, and its CLI's as parsed) all say `Pyright`.
    soleDiagnosticSources: ["Pyright"],
    spec: (root) => spec(root, trusted),
    probe,
    normalizeSymbols: (symbols) => normalizePythonSymbols(symbols),
    declarations: pythonDeclarations,
    // No `project`: pyright analyses the whole workspace folder as one program whatever
    // pyproject.toml files lie below it, so naming one would not say what answered.
    projectCheck: pyrightCheck((root) => pyrightCli(root, trusted)),
    onboarding: pythonOnboarding,
    untrusted: () => pythonAdapterFor(false),
    // Trust changes something only when PATH has entries the untrusted server does not get.
    trustEnables: (root) =>
      pathOutside(process.env.PATH ?? "", root) === pathOutside(process.env.PATH ?? "", undefined)
        ? null
        : "let pyright look for the Python interpreter in PATH's relative entries and in-project folders too, as your shell does",
  };
}

/** The adapter for a trusted project; untrusted() keeps the repository's files off pyright's PATH. */
export const pythonAdapter: LanguageAdapter = pythonAdapterFor(true);
