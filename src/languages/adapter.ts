/**
 * What scalpel knows about one language server: which files it serves, how to launch it, and its
 * quirks. Everything language-specific lives behind this interface; the rest of the code iterates
 * the adapter list in `language-servers/index.ts` (test/unit/language-knowledge.test.ts holds it:
 * src/ outside this folder names no built-in language's manifests, servers or build tools).
 *
 * How to add a language: write one adapter file here (`python.ts`, say) exporting a
 * `LanguageAdapter`, and add it to the `builtIn` list in `index.ts`. The fields below are the whole
 * plug-in surface: finding and starting the server and its readiness and diagnostics (`spec`, see
 * src/lsp/types.ts), `untrusted()` (what it must not run for a project the user has not trusted)
 * and `trustEnables` (what trusting would change), install hints (`probe().hint`, shown by
 * `scalpel doctor`), code extensions (`extensions`, `otherSourceExtensions`), folders
 * (`ignoredDirs`, `dependencyDirs`, `outputs`), test files, symbol clean-up, the project a file
 * belongs to, a whole-project check, and what onboarding reads from the manifests (`onboarding`,
 * in a small file of its own beside the adapter: `go-mod-facts.ts`). Then add the ecosystem's
 * names to the list in language-knowledge.test.ts, a fixture under test/fixtures/ and an e2e test.
 */
import type { Diagnostic, DocumentSymbol } from "vscode-languageserver-protocol";
import type { LaunchCommand, RequestOptions, ServerSpec } from "../lsp/types.js";
import type { CodeActionCommand } from "./code-action-command.js";
import type { DeclarationSyntax } from "./declaration.js";
import type { Moves } from "./moves.js";

export interface ServerProbe {
  found: boolean;
  command?: string;
  version?: string;
  /** How to install it when missing. */
  hint?: string;
}

export interface LanguageAdapter {
  /** Language id used in tool results and config (`typescript`, `rust`, `dart`). */
  id: string;
  displayName: string;
  /** File extensions with the dot, lower case. */
  extensions: string[];
  /**
   * Source files of this language that its server does not open (TypeScript: `.mjs`, `.cjs`):
   * `search_for_pattern`'s `code_files_only` counts them as code with `extensions`.
   */
  otherSourceExtensions?: readonly string[];
  /**
   * Heavy directory names the disk watcher skips (watch cost), `dependencyDirs` included. Not what
   * listing and search hide: that follows the repository's ignore files, `dependencyDirs` and `outputs`.
   */
  ignoredDirs: string[];
  /**
   * Folders of installed dependencies, never the project's sources (`node_modules`): listing and
   * search skip them at any depth, like `.git` (src/files/ignore.ts). List them in `ignoredDirs` too.
   */
  dependencyDirs?: readonly string[];
  /** Folders this language builds into, hidden from listing and search only where a manifest names them. */
  outputs?: OutputDirs;
  /**
   * Which files hold tests, as gitignore-style patterns on project-relative paths (`*.test.ts`,
   * `__tests__/`): what `exclude_tests` leaves out. Default: `test/`, `tests/`, `__tests__/` folders.
   */
  testFiles?: readonly string[];
  /**
   * Diagnostic `source` values that name the language's only checker, so they tell two checks
   * apart nowhere: answers leave them out (a language with several checkers keeps its sources).
   */
  soleDiagnosticSources?: readonly string[];
  /** The launch spec for a project root, or the reason it cannot be launched. */
  spec(root: string): ServerSpec | { missing: string };
  /**
   * This adapter as used for a project the user has not trusted (src/config/trust.ts): it must run
   * no code of the repository — no server binary or compiler it ships, no build script, proc macro
   * or build command — or refuse to start, saying why. Required, so that a new adapter has to decide.
   */
  untrusted(): LanguageAdapter;
  /**
   * What trusting the project lets this adapter run that `untrusted()` withholds, as a phrase that
   * completes "trusting it would: …" (`let rust-analyzer run build scripts and proc macros …`), or
   * null where trust changes nothing for this project (TypeScript without its own compiler). Shown
   * by `scalpel trust`, `scalpel doctor` and `activate_project` (src/config/trust.ts). Absent:
   * trust changes nothing for this language.
   */
  trustEnables?(root: string): string | null;
  /**
   * For `scalpel doctor`; `root` is the project, for servers resolved relative to it. A missing
   * server's `hint` says how to install it: doctor prints it as it is.
   */
  probe(root?: string): Promise<ServerProbe>;
  /**
   * A line `scalpel doctor --project` prints about how this language runs for that project
   * (TypeScript: which backend, and why); null when there is nothing to say.
   */
  doctorNote?(root: string, config: Readonly<Record<string, unknown>>): Promise<string | null>;
  /**
   * Server-specific clean-up of a document symbol tree before name paths are built (drop
   * anonymous callbacks, normalise qualified names, flatten impl blocks, widen ranges to the whole
   * declaration). `text` is the document the symbols describe. Must return symbols in source order.
   */
  normalizeSymbols?(symbols: DocumentSymbol[], text: string): DocumentSymbol[];
  /**
   * How the language writes what stands before a declaration (doc comments, comments,
   * attributes / decorators), what its strings look like, and its usual indentation unit. The one
   * declaration model (src/languages/declaration.ts) uses it to split every symbol into head and body
   * whatever range the server reports; `index.ts` applies it to every adapter. Default: the
   * generic syntax (`//`, `#`, `/* *\/` comments, `#[…]` and `@name(…)` attributes).
   */
  declarations?: DeclarationSyntax;
  /**
   * After a rename, the old name is looked for in the files the rename touched (the generic
   * default) and in every file of this language whose text matches this pattern: places the
   * server's rename cannot see (rust-analyzer: `macro_rules!` bodies).
   */
  renameLeftovers?: { alsoScanFilesMatching: RegExp };
  /** What `rename_symbol` takes as a new name; default: a letter, `_` or `$`, then word characters. */
  identifier?: RegExp;
  /**
   * Where a name's spelling decides who may use it (`#x` private in JavaScript, an upper-case Go
   * name exported, a Dart `_x` library-private): the visibility a name has, said in words. A
   * rename that would change it is refused unless asked for (`change_visibility`): measured on a
   * TypeScript class, renaming `#currentTime` to `now` made the member public and `tsc` still passed.
   */
  nameVisibility?(name: string): string;
  /**
   * References are asked with `includeDeclaration: true` (the declaration itself is dropped by
   * position): TypeScript 7's native server counts import specifiers as declarations and leaves
   * the import sites out of an `includeDeclaration: false` answer.
   */
  referencesWithDeclaration?: boolean;
  /**
   * How `get_project_diagnostics` checks the whole project: the compiler run as a command. Without
   * it the server is asked for `workspace/diagnostic` when it announces `workspaceDiagnostics`,
   * and the answer says `complete: false` when it does not.
   */
  projectCheck?: ProjectCheck;
  /**
   * Which project answers for a file (references, diagnostics): the nearest of these manifest
   * files up from the file, inside the root (`Cargo.toml`), or a question to the server (tsserver
   * knows which tsconfig a file belongs to). Absent: results name no project.
   */
  project?: { manifests: readonly string[] } | { ask: AskProject };
  /** What the `onboarding` tool reads from this language's manifests at the project root. */
  onboarding?: OnboardingFacts;
  /**
   * Code action commands the adapter turns into their edit itself (see code-action-command.ts);
   * any other command of a chosen action is executed and the edits the server sends are collected.
   */
  codeActionCommand?: CodeActionCommand;
  /**
   * Server commands known to change files only by sending their edit back (`workspace/applyEdit`),
   * which then goes through the one writer: the only commands apply_code_action executes. Any
   * other command may write files itself or run the repository's code (gopls' "Run tests", its
   * `go mod tidy`), past the sandbox, the secret check and undo: refused.
   */
  editOnlyCommands?: readonly string[];
  /** move_file / move_symbol beyond the generic `workspace/willRenameFiles` (see moves.ts). */
  moves?: Moves;
}

/** The manifests of one language, read for onboarding (src/onboarding/facts.ts). */
export interface OnboardingFacts {
  /** The root files `facts` reads, by exact name: named when a project has no commands at all. */
  manifests: readonly string[];
  /** What they say, or null when the project has none of them. */
  facts(tree: ProjectTree): Promise<ManifestFacts | null>;
  /**
   * Top-level folders that by this language's convention hold sources (`crates`, `cmd`,
   * `internal`), suggested for a first list_dir beside `src`, `lib`, `bin`, `app`, `packages`.
   */
  sourceFolders?: readonly string[];
}

/** What one language's manifests say; every path is root-relative and names a visible file. */
export interface ManifestFacts {
  /** The build files read, in the order shown (`package.json`, `pnpm-lock.yaml`). */
  buildFiles: string[];
  /** Entry points with where they come from: `src/main.rs (Cargo binary)`. */
  entryPoints: string[];
  /** Build, test and check commands with where they come from: `cargo test (Cargo.toml)`. */
  commands: string[];
  /** The package manager and what says so: `pnpm (pnpm-lock.yaml)`. */
  packageManager?: string;
  /** Workspace package (member) directories. */
  workspaces?: string[];
  /** Other facts, one line each: `Go module example.com/shop: go 1.22, 2 direct requirements (go.mod)`. */
  notes?: string[];
}

/** The project as onboarding may look at it: root-relative paths, secrets and ignored paths invisible. */
export interface ProjectTree {
  /** Whether `rel` is a visible file (exists, not ignored, not secret). */
  isFile(rel: string): Promise<boolean>;
  /** A visible text file's content (bounded in size), or null. */
  read(rel: string): Promise<string | null>;
  /** The names of the visible directories directly under `rel`, sorted. */
  dirs(rel: string): Promise<string[]>;
  /** The names of the visible files directly under `rel`, sorted. */
  files(rel: string): Promise<string[]>;
}

/** Output folders declared by a manifest: `dirs` reads one manifest and answers paths relative to it. */
export interface OutputDirs {
  /** Exact file names (`Cargo.toml`, `tsconfig.json`). */
  manifests: readonly string[];
  /**
   * `at.abs` is the manifest's path, `at.root` the project root: a manifest that points at others
   * (a tsconfig's `extends`) reads them only inside the root.
   */
  dirs(manifestText: string, at: { abs: string; root: string }): string[];
}

/** Asks a server which project a file belongs to; `uri` is an open document. */
export type AskProject = (
  server: ProjectServer,
  file: { abs: string; uri: string },
  /** `root`: the project root; files outside it are never read to answer. */
  opts: { listFiles: boolean; root: string } & RequestOptions,
) => Promise<ServerProject>;

/** The part of a session a project question needs. */
export interface ProjectServer {
  executeCommand<R>(command: string, args: unknown[], opts?: RequestOptions): Promise<R>;
  /** Any LSP request (TypeScript 7's `custom/projectInfo`); absent in fakes that only run commands. */
  request?<R>(method: string, params: unknown, opts?: RequestOptions): Promise<R>;
}

export interface ServerProject {
  /** Absolute path of the project's config file; null: the file is in no configured project. */
  config: string | null;
  /** Absolute paths of every file of that project, when asked for. */
  files?: readonly string[];
  /** What an answer for a file in no configured project must say (its checks use defaults). */
  note?: string;
}

/** A whole-project check by the language's own compiler (tsc, cargo check). */
export interface ProjectCheck {
  /**
   * The check runs code of the repository (cargo: build.rs and proc macros), not just a reader of
   * its text. The one place that knows it, so that running it can be gated on trusting the project.
   */
  runsProjectCode: boolean;
  /** The file that marks a unit to check (`tsconfig.json`, `Cargo.toml`), by exact name. */
  manifest: string;
  /**
   * The commands for the manifests found (project-relative, sorted, outside ignored paths): those
   * under the checked directory, or the nearest one above it when none is inside.
   */
  units(root: string, manifests: readonly string[]): CheckUnit[];
  /** Diagnostics from the command's stdout; `file` is absolute. */
  parse(stdout: string, unit: CheckUnit): Array<{ file: string; diagnostic: Diagnostic }>;
  /** A progress message for one stdout line, when it marks a step (cargo: a crate checked). */
  progressOf?(line: string): string | undefined;
  /** Bound on one unit's run; past it the answer is `complete: false`. */
  timeoutMs: number;
}

export interface CheckUnit {
  /** What ran, as shown in results: `tsc -p tsconfig.json`, `cargo check`. */
  how: string;
  /** The manifest checked, project-relative. */
  project: string;
  launch: LaunchCommand;
  /** Absolute working directory; relative paths in the output are resolved against it. */
  cwd: string;
}
