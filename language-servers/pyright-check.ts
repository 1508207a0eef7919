/**
 * The whole-project check for Python: pyright's own CLI, `pyright --outputjson -p <pyproject.toml>`.
 * The language server has no workspace diagnostics (it answers `workspace/diagnostic` with an empty
 * list, announcing none); the CLI checks every file of the project (measured, 1.1.414: exit 1 with
 * errors, 0 without, the JSON on stdout either way; nothing is written).
 */
import { dirname, join } from "node:path";
import { type Diagnostic, DiagnosticSeverity } from "vscode-languageserver-protocol";
import type { CheckUnit, ProjectCheck } from "../src/languages/adapter.js";
import type { LaunchCommand } from "../src/lsp/types.js";

const severityOf: Record<string, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  information: DiagnosticSeverity.Information,
};

interface PyrightJson {
  generalDiagnostics?: Array<{
    file?: string;
    severity?: string;
    message?: string;
    rule?: string;
    range?: Diagnostic["range"];
  }>;
}

export function parsePyrightOutput(stdout: string, unit: CheckUnit): ReturnType<ProjectCheck["parse"]> {
  let json: PyrightJson;
  try {
    json = JSON.parse(stdout) as PyrightJson;
  } catch {
    return [];
  }
  const zero = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
  return (json.generalDiagnostics ?? []).map((d) => {
    const diagnostic: Diagnostic = {
      range: d.range ?? zero,
      severity: severityOf[d.severity ?? "error"] ?? DiagnosticSeverity.Error,
      // The language server's own spelling, so that both checks read the same.
      source: "Pyright",
      message: d.message ?? "",
    };
    if (d.rule) diagnostic.code = d.rule;
    // A problem of the configuration itself comes without a file: it belongs to the manifest.
    return { file: d.file ?? join(unit.cwd, "pyproject.toml"), diagnostic };
  });
}

/**
 * `cli(root)`: how to run pyright's CLI for the project (the one beside the language server), with
 * the same environment the server gets. A nested pyproject.toml is a unit only where no
 * pyproject.toml above it covers it: pyright checks every file below the one it is given.
 */
export function pyrightCheck(cli: (root: string) => LaunchCommand): ProjectCheck {
  return {
    // pyright reads the sources and stubs; the interpreter it asks for import paths is the
    // server's (see python.ts), never a file of the repository in an untrusted project.
    runsProjectCode: false,
    manifest: "pyproject.toml",
    units(root, manifests) {
      const launch = cli(root);
      const dirs = manifests.map((m) => dirname(m));
      const covered = (dir: string) => dirs.some((d) => d !== dir && (d === "." || dir.startsWith(`${d}/`)));
      const outermost = manifests.filter((m) => !covered(dirname(m)));
      return outermost.map((project) => ({
        how: `pyright -p ${project}`,
        project,
        cwd: join(root, dirname(project)),
        launch: { ...launch, args: [...launch.args, "--outputjson", "-p", join(root, project)] },
      }));
    },
    parse: parsePyrightOutput,
    // Generous: the bound only stops a check that will not end, a slow one is still the answer.
    timeoutMs: 300_000,
  };
}
