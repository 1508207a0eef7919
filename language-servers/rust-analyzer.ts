/**
 * rust-analyzer (measured with 0.0.340, `ra_ap_rust-analyzer` built by `install-rust-analyzer.sh`,
 * on rustc 1.95). Behaviour observed on that version is noted next to each setting.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import type { LanguageAdapter, ServerProbe } from "../src/languages/adapter.js";
import type { DeclarationSyntax } from "../src/languages/declaration.js";
import type { ServerSpec } from "../src/lsp/types.js";
import { type Candidate, firstRunning, type Running, runVersion } from "../src/process/probe.js";
import { cargoCheck } from "./cargo-check.js";
import { cargoOnboarding } from "./cargo-facts.js";
import { normalizeRustSymbols } from "./rust-symbols.js";

export const installHint =
  "Install rust-analyzer: `rustup component add rust-analyzer`, or run `language-servers/install-rust-analyzer.sh` " +
  "(builds it with cargo into ~/.cache/scalpel-ra), or set SCALPEL_RUST_ANALYZER to a rust-analyzer binary.";

/** Where a working rust-analyzer is looked for, in order. */
export function rustAnalyzerCandidates(env: NodeJS.ProcessEnv = process.env): Candidate[] {
  const home = homedir();
  const out: Candidate[] = [];
  const explicit = env.SCALPEL_RUST_ANALYZER;
  if (explicit) return [{ command: explicit, from: "SCALPEL_RUST_ANALYZER" }];
  out.push({ command: "rust-analyzer", from: "PATH" });
  out.push({ command: join(home, ".cargo", "bin", "rust-analyzer"), from: "~/.cargo/bin" });
  out.push({
    command: join(home, ".cache", "scalpel-ra", "bin", "rust-analyzer"),
    from: "~/.cache/scalpel-ra",
  });
  return out;
}

/** A failing proxy or build prints no Rust backtrace into the "not installed" message. */
const quietRun = { RUST_BACKTRACE: "0" };

/**
 * The first candidate that answers `--version`. Existence is not enough: `~/.cargo/bin/rust-analyzer`
 * is usually the rustup proxy, which fails with "Unknown binary 'rust-analyzer' in official
 * toolchain" until the component is installed (observed with rustup 1.28; the check costs ~5 ms
 * for rust-analyzer 0.0.340, ~20 ms for the failing proxy, measured).
 */
export function findRustAnalyzer(): Running | { missing: string } {
  const found = firstRunning(rustAnalyzerCandidates(), ["--version"], quietRun);
  if ("command" in found) return found;
  return {
    missing: `rust-analyzer is not installed or does not run (${found.tried.join("; ")}). ${installHint}`,
  };
}

/**
 * Settings, chosen on purpose (rust-analyzer reads them from initializationOptions and asks for
 * the `rust-analyzer` section again after didChangeConfiguration).
 */
export const rustAnalyzerSettings = {
  // Priming indexes every crate of the workspace and its dependencies up front; on big workspaces
  // that costs many GB of memory. Queries index what they need lazily instead.
  cachePriming: { enable: false },
  // `cargo check` after each save gives rustc's own errors (borrow checker, trait solving) that
  // rust-analyzer does not compute itself; they arrive by push, merged into the pulled set.
  checkOnSave: true,
  check: { command: "check" },
  cargo: {
    // Build scripts and proc macros expand generated code (derives, `include!(concat!(env!("OUT_DIR")…))`);
    // without them symbols go missing and unresolved-item errors appear that cargo does not report.
    buildScripts: { enable: true },
    // Own target dir (`target/rust-analyzer`): its cargo runs never wait on the lock of the user's
    // `cargo build`, nor the user's on ours.
    targetDir: true,
  },
  procMacro: { enable: true },
  // Files are synced by scalpel (didChange/didChangeWatchedFiles); no second watcher of its own.
  files: { watcher: "client" },
};

/**
 * For a project the user has not trusted: nothing that runs the repository's code. Build scripts
 * (`build.rs`) and proc macros are compiled and run by rust-analyzer at load when enabled;
 * `checkOnSave` runs `cargo check`, which runs them too. Without them, generated items are missing
 * (the answer for a derive-heavy crate is poorer), which is the price of not running a stranger's code.
 */
export const untrustedRustAnalyzerSettings = {
  ...rustAnalyzerSettings,
  checkOnSave: false,
  cargo: { ...rustAnalyzerSettings.cargo, buildScripts: { enable: false } },
  procMacro: { enable: false },
};

/**
 * Even with build scripts off, rust-analyzer runs `cargo metadata` at load, and cargo runs the
 * `build.rustc-wrapper` / `rustc-workspace-wrapper` / `build.rustc` a repository's
 * `.cargo/config.toml` names (measured with cargo 1.95: `rustc-wrapper = "./wrap.sh"` ran the
 * script from `cargo metadata`). The environment outranks config files; an empty wrapper variable
 * means "no wrapper", and `RUSTC=rustc` is the toolchain's own compiler from PATH.
 */
const untrustedCargoEnv = { RUSTC_WRAPPER: "", RUSTC_WORKSPACE_WRAPPER: "", RUSTC: "rustc" };

function spec(_root: string, trusted: boolean): ServerSpec | { missing: string } {
  const found = findRustAnalyzer();
  if ("missing" in found) return found;
  const settings = trusted ? rustAnalyzerSettings : untrustedRustAnalyzerSettings;
  const out: ServerSpec = {
    id: "rust",
    launch: {
      command: found.command,
      args: [],
      env: { RUST_BACKTRACE: "0", ...(trusted ? {} : untrustedCargoEnv) },
    },
    initializationOptions: settings,
    configuration: (section) => (section === "rust-analyzer" || section === undefined ? settings : null),
    // rust-analyzer reports readiness through `experimental/serverStatus` only when the client
    // asks for it; `quiescent: true` means the workspace is loaded and indexed, and its `message`
    // (e.g. an indexing state) says what it is doing meanwhile. Its `$/progress` (indexing, cache
    // priming, `cargo check`) does not hold requests: quiescent is the signal. Busy until it says.
    clientCapabilities: { experimental: { serverStatusNotification: true } },
    readiness: {
      status: {
        method: "experimental/serverStatus",
        busy: (p) => p.quiescent !== true,
        message: (p) => (typeof p.message === "string" ? p.message : undefined),
        initiallyBusy: true,
      },
      maxWaitMs: 120_000,
    },
    languageIdFor: () => "rust",
    // Its own diagnostics by pull; `cargo check` publishes by push after a save.
    diagnostics: "pull",
    // rust-analyzer may drop the `cargo check` a save asked for: on serde_json, after a rename
    // wrote 7 files (didChange + didSave each), no run began at all and the pushed errors stayed
    // those of the state before the rename (measured: 0 errors, complete, for 60 s while `cargo
    // check` had 37); the session then saves once more. It starts a run by itself once the
    // workspace is loaded (observed 1–3 ms after quiescent).
    pushedAlongsidePull: {
      name: "cargo check",
      progressTitle: /^cargo /,
      startWithinMs: 2_000,
      maxWaitMs: 60_000,
      startsAfterLoad: true,
      // It sends a run's end as it handles it and publishes the run's last findings at the end of
      // that turn of its loop, just after; a restarted run (a save during a run) comes as end then
      // begin. Judged idle at the end itself, a CI run's get_diagnostics_for_file came back
      // complete without cargo check's error (three test files on two cores; suspected cause).
      quietAfterEndMs: 150,
    },
    // `cargo check` runs on save: every change synced from disk (any writer's) is saved.
    saveOnSync: true,
    requestTimeoutMs: 60_000,
  };
  // No `cargo check` runs for an untrusted project: nothing to wait for after a save, and what
  // only the compiler finds is missing (measured on serde_json after a rename: 0 errors from
  // rust-analyzer alone on a file `cargo check` failed on).
  if (!trusted) {
    delete out.pushedAlongsidePull;
    out.diagnosticsGap =
      "cargo check is off because the project is not trusted, so errors only the compiler finds (types, borrows, macro expansions) are missing; run `scalpel trust` in the project to turn it on";
  }
  return out;
}

async function probe(): Promise<ServerProbe> {
  const found = findRustAnalyzer();
  if ("missing" in found) return { found: false, hint: found.missing };
  const v = await runVersion(found.command, ["--version"], undefined, quietRun);
  return { found: true, command: `${found.command} (${found.from})`, version: v.output || found.version };
}

/**
 * Measured with rust-analyzer 1.95.0 (rustup component): an item's range starts at its first
 * outer doc comment (`///` or a block doc comment), attribute (`#[inline]`, `#[derive(..)]`, `#[cfg(test)]` on a
 * `mod`, `#[test]` on a fn, a multi-line `#[cfg_attr(..)]`) or plain `//` comment directly above
 * it, also across a blank line between a doc comment and an attribute; never at inner forms
 * (`//!`, `#![..]`: they document the enclosing module) nor across a blank line above the first
 * comment. Replacing that whole range dropped docs and attributes the caller did not re-send,
 * hence the explicit head. `'x'` is a char literal, `'a` a lifetime; a lone `where` line indents
 * its clauses (rustfmt's shape; serde_json's generic fns have them).
 */
export const rustDeclarations: DeclarationSyntax = {
  lineComments: ["//"],
  blockComments: [["/*", "*/"]],
  docComments: ["///", "/**"],
  quotes: ['"'],
  charLiterals: true,
  attributes: ["#["],
  inner: ["//!", "/*!", "#!["],
  clauseLine: /^where$/,
  indentUnit: "    ",
};

function rustAnalyzerAdapterFor(trusted: boolean): LanguageAdapter {
  return {
    ...rustCommon,
    spec: (root) => spec(root, trusted),
    untrusted: () => rustAnalyzerAdapterFor(false),
  };
}

const rustCommon: Omit<LanguageAdapter, "spec" | "untrusted"> = {
  id: "rust",
  displayName: "Rust (rust-analyzer)",
  extensions: [".rs"],
  ignoredDirs: ["target"],
  outputs: { manifests: ["Cargo.toml"], dirs: () => ["target"] },
  probe,
  normalizeSymbols: normalizeRustSymbols,
  declarations: rustDeclarations,
  // rust-analyzer renames no path written inside a `macro_rules!` body (tokens, not resolved code):
  // renaming serde_json's `ErrorCode` left 37 `cargo check` errors there (rust-analyzer 1.95).
  renameLeftovers: { alsoScanFilesMatching: /\bmacro_rules!/ },
  projectCheck: cargoCheck,
  // The Cargo package a file belongs to: the nearest Cargo.toml up from it. rust-analyzer loads
  // the whole workspace whatever is open, so its answers need no scoping, only this name.
  project: { manifests: ["Cargo.toml"] },
  onboarding: cargoOnboarding,
  trustEnables: () =>
    "let rust-analyzer run build scripts and proc macros and the cargo config's rustc wrapper, and run cargo check (get_project_diagnostics, diagnostics after saves)",
};

/** The adapter for a trusted project. `cargo check` (projectCheck) runs only for trusted projects. */
export const rustAnalyzerAdapter: LanguageAdapter = rustAnalyzerAdapterFor(true);
