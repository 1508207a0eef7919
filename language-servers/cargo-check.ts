/**
 * The whole-project check for Rust: `cargo check` of each Cargo workspace, rustc's own messages as
 * JSON. rust-analyzer announces no workspace diagnostics, and its flycheck results arrive only by
 * push after a save; `cargo check` is what the build runs (borrow checker, trait solving, macros
 * rust-analyzer does not expand the same way). It runs as a bounded command in its own process
 * group: cargo forks rustc and build scripts, which a kill of cargo alone would orphan.
 */
import { dirname, join, resolve } from "node:path";
import { type Diagnostic, DiagnosticSeverity } from "vscode-languageserver-protocol";
import type { ProjectCheck } from "../src/languages/adapter.js";

interface Span {
  file_name: string;
  line_start: number;
  line_end: number;
  column_start: number;
  column_end: number;
  is_primary: boolean;
}

interface CompilerMessage {
  reason: "compiler-message";
  message: { level: string; message: string; code: { code: string } | null; spans: Span[] };
}

const severityOf: Record<string, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  "error: internal compiler error": DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  note: DiagnosticSeverity.Information,
  help: DiagnosticSeverity.Hint,
};

/**
 * One JSON object per line (cargo 1.95). `file_name` is relative to the workspace root for its own
 * crates and absolute for dependencies. Messages without a primary span are summaries ("aborting
 * due to 3 previous errors", `failure-note`) and are left out. An error inside a `macro_rules!`
 * body has its primary span in the macro's definition, where the fix goes.
 */
export function parseCargoOutput(stdout: string, unit: { cwd: string }): ReturnType<ProjectCheck["parse"]> {
  const out: ReturnType<ProjectCheck["parse"]> = [];
  for (const line of stdout.split("\n")) {
    if (!line.startsWith("{")) continue;
    let msg: CompilerMessage;
    try {
      msg = JSON.parse(line) as CompilerMessage;
    } catch {
      continue;
    }
    if (msg.reason !== "compiler-message") continue;
    const severity = severityOf[msg.message.level];
    const span = msg.message.spans.find((s) => s.is_primary);
    if (severity === undefined || !span) continue;
    // rustc counts columns in characters; the same as UTF-16 units except past astral characters.
    const diagnostic: Diagnostic = {
      range: {
        start: { line: span.line_start - 1, character: span.column_start - 1 },
        end: { line: span.line_end - 1, character: span.column_end - 1 },
      },
      severity,
      source: "cargo check",
      message: msg.message.message,
    };
    if (msg.message.code) diagnostic.code = msg.message.code.code;
    out.push({ file: resolve(unit.cwd, span.file_name), diagnostic });
  }
  return out;
}

export const cargoCheck: ProjectCheck = {
  // cargo check compiles and RUNS build.rs scripts and proc macros of the project and its
  // dependencies: this is the check that must be gated on trusting the project.
  runsProjectCode: true,
  manifest: "Cargo.toml",
  units(root, manifests) {
    // The outermost manifests: `--workspace` checks the members below them.
    const tops = manifests.filter(
      (m) => !manifests.some((o) => o !== m && dirname(o) !== dirname(m) && isAbove(dirname(o), m)),
    );
    return tops.map((project) => {
      const cwd = join(root, dirname(project));
      return {
        how: "cargo check",
        project,
        cwd,
        launch: {
          command: "cargo",
          args: [
            "check",
            "--workspace",
            // Like rust-analyzer's flycheck: tests, examples and benches are code of the project too.
            "--all-targets",
            // Every crate's errors, not just the first failing one's.
            "--keep-going",
            "--message-format=json",
            // Its own target dir: never waits on the lock of the user's build or of
            // rust-analyzer's flycheck (`target/rust-analyzer`), nor they on it.
            "--target-dir",
            join(cwd, "target", "scalpel-check"),
          ],
          env: { CARGO_TERM_COLOR: "never" },
        },
      };
    });
  },
  parse: parseCargoOutput,
  progressOf(line) {
    if (!line.startsWith('{"reason":"compiler-artifact"')) return undefined;
    try {
      const name = (JSON.parse(line) as { target?: { name?: string } }).target?.name;
      return name ? `cargo check: ${name} checked` : undefined;
    } catch {
      return undefined;
    }
  },
  // A first check compiles every dependency; later ones reuse the target dir and take seconds.
  timeoutMs: 600_000,
};

function isAbove(dir: string, file: string): boolean {
  return dir === "." || file.startsWith(`${dir}/`);
}
