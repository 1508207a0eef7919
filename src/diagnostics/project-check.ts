/**
 * Collecting a whole project's diagnostics for one language: the adapter's compiler check run as a
 * bounded command, or the server's `workspace/diagnostic` where it announces it. Every result says
 * what ran and whether it covered everything.
 */
import { basename, dirname } from "node:path";
import type { Diagnostic as LspDiagnostic, WorkspaceDiagnosticReport } from "vscode-languageserver-protocol";
import { walkFiles } from "../files/ignore.js";
import type { CheckUnit, LanguageAdapter, ProjectCheck } from "../languages/adapter.js";
import { uriToPath } from "../lsp/uri.js";
import { runBounded } from "../process/bounded-command.js";
import type { CallContext } from "../project/call-context.js";
import type { Project } from "../project/project.js";
import { scrubPaths } from "../security/scrub.js";

export interface Found {
  /** Absolute path, as the checker named it. */
  file: string;
  diagnostic: LspDiagnostic;
}

export interface Checked {
  language: string;
  how: string;
  project?: string;
}

export interface LanguageCheck {
  found: Found[];
  checked: Checked[];
  /** Why the check did not cover everything, one entry per gap. */
  gaps: string[];
}

/** More units than this (tsconfigs, cargo workspaces) are left out, and the answer says so. */
const maxUnits = 20;

export async function checkLanguage(
  adapter: LanguageAdapter,
  scope: string,
  manifests: ReadonlyMap<string, string[]>,
  ctx: CallContext,
): Promise<LanguageCheck> {
  if (adapter.projectCheck?.runsProjectCode && !ctx.project.trust.trusted) {
    // `cargo check` compiles and runs build scripts and proc macros: the repository's code.
    return {
      found: [],
      checked: [],
      gaps: [
        `${adapter.displayName}: the whole-project check runs the repository's own code (build scripts, proc macros) and the project is not trusted, so it was not run; ask the user to run \`scalpel trust\` in the project's directory, or check files one by one with get_diagnostics_for_file`,
      ],
    };
  }
  if (adapter.projectCheck) {
    return runCommandCheck(
      adapter,
      adapter.projectCheck,
      manifests.get(adapter.projectCheck.manifest) ?? [],
      scope,
      ctx,
    );
  }
  return pullWorkspaceDiagnostics(adapter, ctx);
}

/** The manifest files (by name) of the whole project, outside ignored paths, in path order. */
export async function findManifests(
  project: Project,
  names: ReadonlySet<string>,
  signal: AbortSignal,
): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>([...names].map((n) => [n, []]));
  if (names.size === 0) return out;
  for await (const entry of walkFiles(project.root, ".", project.ignore, { skipIgnored: true, signal })) {
    if (!entry.isDir) out.get(basename(entry.rel))?.push(entry.rel);
  }
  return out;
}

/** Units for the directory `scope`: every manifest inside it, and those above it (which cover it). */
export function manifestsFor(all: readonly string[], scope: string): string[] {
  if (scope === ".") return [...all];
  return all.filter((m) => {
    const dir = dirname(m);
    return m.startsWith(`${scope}/`) || dir === "." || scope === dir || scope.startsWith(`${dir}/`);
  });
}

async function runCommandCheck(
  adapter: LanguageAdapter,
  check: ProjectCheck,
  manifests: readonly string[],
  scope: string,
  ctx: CallContext,
): Promise<LanguageCheck> {
  const root = ctx.project.root;
  const result: LanguageCheck = { found: [], checked: [], gaps: [] };
  const chosen = manifestsFor(manifests, scope);
  if (chosen.length === 0) {
    result.gaps.push(
      `${adapter.displayName}: no ${check.manifest} at or above '${scope}', so there is no project to check`,
    );
    return result;
  }
  const units = check.units(root, chosen);
  if (units.length > maxUnits) {
    result.gaps.push(
      `${units.length - maxUnits} more ${check.manifest} files were not checked (at most ${maxUnits} per call); give relative_path a directory`,
    );
  }
  const run = units.slice(0, maxUnits);
  for (const [i, unit] of run.entries()) {
    ctx.progress(`${unit.how} (${unit.project})`, i, run.length);
    const gap = await runUnit(check, unit, ctx, result);
    result.checked.push({ language: adapter.id, how: unit.how, project: unit.project });
    if (gap) result.gaps.push(scrubPaths(gap, ctx.project.root));
    if (ctx.signal.aborted) break;
  }
  ctx.progress("checked", run.length, run.length);
  return result;
}

async function runUnit(
  check: ProjectCheck,
  unit: CheckUnit,
  ctx: CallContext,
  result: LanguageCheck,
): Promise<string | undefined> {
  const started = Date.now();
  const run = await runBounded(
    unit.launch,
    unit.cwd,
    {
      timeoutMs: check.timeoutMs,
      signal: ctx.signal,
      onLine: (line) => {
        const step = check.progressOf?.(line);
        if (step) ctx.progress(step);
      },
    },
    ctx.log,
  );
  ctx.log.debug(`${unit.how} in ${unit.project}: exit ${run.exitCode} after ${Date.now() - started} ms`);
  if (run.spawnError) return `${unit.how} could not start (${run.spawnError}); is it installed?`;
  const found = check.parse(run.stdout, unit);
  result.found.push(...found);
  if (run.timedOut) return `${unit.how} (${unit.project}) did not finish within ${check.timeoutMs / 1000} s`;
  if (run.aborted) return `${unit.how} (${unit.project}) was cancelled`;
  if (run.outputCut)
    return `${unit.how} (${unit.project}) wrote more output than is read; some diagnostics are missing`;
  // A failure without any error to show it (a broken manifest, a crash) must not read as "clean".
  if (run.exitCode !== 0 && !found.some((f) => f.diagnostic.severity === 1)) {
    const why = firstLine(run.stderr) ?? firstLine(run.stdout) ?? "no output";
    return `${unit.how} (${unit.project}) failed with exit code ${run.exitCode}: ${why}`;
  }
  return undefined;
}

function firstLine(text: string): string | undefined {
  return text
    .split("\n")
    .map((l) => l.trim())
    .find(
      (l) => l !== "" && !l.startsWith("{") && !/^(Compiling|Checking|Blocking|Updating|Locking)\b/.test(l),
    );
}

/**
 * LSP 3.17's pull model for the whole workspace, asked only of servers that announce it in their
 * initialize result: pyright 1.1 answers `workspace/diagnostic` with `{items: []}` even though it
 * announces no `diagnosticProvider` (measured with our client capabilities) — an empty list that
 * would read as "all clear".
 */
async function pullWorkspaceDiagnostics(adapter: LanguageAdapter, ctx: CallContext): Promise<LanguageCheck> {
  const result: LanguageCheck = { found: [], checked: [], gaps: [] };
  const server = `the ${adapter.id} language server (${adapter.displayName})`;
  let session: ReturnType<Project["pool"]["sessionFor"]>["session"];
  try {
    // The pool finds a language's server by a file's extension.
    session = ctx.project.pool.sessionFor(`any${adapter.extensions[0] ?? ""}`).session;
    await session.whenReady(ctx.signal);
  } catch (e) {
    result.gaps.push(`${server} is not available: ${e instanceof Error ? e.message : String(e)}`);
    return result;
  }
  const provider = session.capabilities.diagnosticProvider;
  if (!provider || !("workspaceDiagnostics" in provider) || !provider.workspaceDiagnostics) {
    result.gaps.push(
      `${server} offers no whole-project diagnostics (no workspaceDiagnostics in its diagnosticProvider); check files one by one with get_diagnostics_for_file`,
    );
    return result;
  }
  ctx.progress(`${adapter.id}: workspace/diagnostic`);
  let report: WorkspaceDiagnosticReport;
  try {
    report = await session.request<WorkspaceDiagnosticReport>(
      "workspace/diagnostic",
      { previousResultIds: [] },
      { signal: ctx.signal },
    );
  } catch (e) {
    result.gaps.push(
      `${server} did not answer workspace/diagnostic: ${e instanceof Error ? e.message : String(e)}`,
    );
    return result;
  }
  result.checked.push({ language: adapter.id, how: "workspace/diagnostic" });
  for (const item of report.items) {
    if (item.kind !== "full") continue;
    let file: string;
    try {
      file = uriToPath(item.uri);
    } catch {
      continue; // not a file: URI, nothing of the project
    }
    for (const diagnostic of item.items) result.found.push({ file, diagnostic });
  }
  return result;
}
