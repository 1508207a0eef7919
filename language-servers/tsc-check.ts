/**
 * The whole-project check for TypeScript: the compiler itself, `tsc --noEmit -p <tsconfig>`.
 * tsserver over LSP has no workspace diagnostics (tsls 5.3 announces no `diagnosticProvider`), and
 * its `geterr` checks only the files named in the request; `tsc` is what the project's build runs.
 */
import { basename, dirname, join, resolve } from "node:path";
import { DiagnosticSeverity } from "vscode-languageserver-protocol";
import type { CheckUnit, ProjectCheck } from "../src/languages/adapter.js";

/**
 * `file(line,col): error TS2322: message` — the `--pretty false` form (tsc 5.9). Paths are relative
 * to the working directory. A message chain continues on the following lines, indented by two
 * spaces per level; a diagnostic without a file (a bad option) starts with `error TS5023:`.
 */
const located = /^(.+)\((\d+),(\d+)\): (error|warning|suggestion|message) (TS\d+): (.*)$/;
const global = /^(error|warning|suggestion|message) (TS\d+): (.*)$/;

const severityOf: Record<string, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  suggestion: DiagnosticSeverity.Hint,
  message: DiagnosticSeverity.Information,
};

export function parseTscOutput(stdout: string, unit: CheckUnit): ReturnType<ProjectCheck["parse"]> {
  const out: ReturnType<ProjectCheck["parse"]> = [];
  let last: { message: string } | undefined;
  for (const raw of stdout.split("\n")) {
    const line = raw.replace(/\r$/, "");
    const m = located.exec(line);
    const g = m ? null : global.exec(line);
    if (m || g) {
      // tsc counts columns in UTF-16 code units, 1-based, like the contract; it gives no end.
      const l = m ? Number(m[2]) - 1 : 0;
      const c = m ? Number(m[3]) - 1 : 0;
      const diagnostic = {
        range: { start: { line: l, character: c }, end: { line: l, character: c } },
        severity: severityOf[m ? m[4]! : g![1]!] ?? DiagnosticSeverity.Error,
        code: m ? m[5]! : g![2]!,
        source: "tsc",
        message: m ? m[6]! : g![3]!,
      };
      // An error of the configuration itself belongs to the tsconfig it came from.
      out.push({ file: m ? resolve(unit.cwd, m[1]!) : join(unit.cwd, basename(unit.project)), diagnostic });
      last = diagnostic;
    } else if (last && line.startsWith("  ")) {
      last.message += `\n${line}`;
    } else if (line.trim() !== "") {
      last = undefined;
    }
  }
  return out;
}

/** `tscPath(root)`: the compiler to run for the project (its own 5.x, else the bundled one). */
export function tscCheck(tscPath: (root: string) => string): ProjectCheck {
  return {
    // tsc reads the project's files and types; it runs none of its code (plugins are tsserver-only).
    runsProjectCode: false,
    manifest: "tsconfig.json",
    units(root, manifests) {
      const tsc = tscPath(root);
      return manifests.map((project) => ({
        how: `tsc --noEmit -p ${project}`,
        project,
        cwd: join(root, dirname(project)),
        launch: {
          command: process.execPath,
          args: [
            tsc,
            "--noEmit",
            "-p",
            join(root, project),
            "--pretty",
            "false",
            // A check must write nothing: `incremental`/`composite` would write .tsbuildinfo files
            // even with --noEmit (measured with tsc 5.9).
            "--incremental",
            "false",
            "--composite",
            "false",
          ],
        },
      }));
    },
    parse: parseTscOutput,
    // Generous: the bound only stops a check that will not end, a slow one is still the answer.
    timeoutMs: 300_000,
  };
}
