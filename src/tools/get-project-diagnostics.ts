import { z } from "zod";
import { adaptersFor } from "../../language-servers/index.js";
import { plural } from "../core/words.js";
import { type Diagnostic, diagnosticSchema, severities, toDiagnostic } from "../diagnostics/diagnostic.js";
import { type Checked, checkLanguage, type Found, findManifests } from "../diagnostics/project-check.js";
import type { Located, Sandbox } from "../security/sandbox.js";
import { defineTool, readOnly } from "./kit/define.js";
import type { Answer } from "./kit/envelope.js";
import { completeness, maxAnswerChars, searchScope } from "./kit/params.js";

type Severity = (typeof severities)[number];

const fileSchema = z.object({
  relative_path: z.string(),
  diagnostics: z.array(diagnosticSchema).describe("ordered by position"),
  withheld: z
    .number()
    .int()
    .optional()
    .describe("a secret file: how many diagnostics it has; their messages are never shown"),
});

const output = {
  files: z.array(fileSchema).describe("files with diagnostics at or above min_severity, in path order"),
  file_count: z.number().int().describe("how many files have them, also when `files` was shortened"),
  counts: z
    .object({
      error: z.number().int(),
      warning: z.number().int(),
      information: z.number().int(),
      hint: z.number().int(),
    })
    .describe("every diagnostic found under relative_path by severity, whatever min_severity and the budget"),
  checked: z
    .array(z.object({ language: z.string(), how: z.string(), project: z.string().optional() }))
    .describe("what ran: the compiler command and its tsconfig / Cargo.toml, or workspace/diagnostic"),
  ...completeness,
};
type Result = Answer<typeof output>;

export const getProjectDiagnosticsTool = defineTool({
  name: "get_project_diagnostics",
  title: "Diagnostics of the whole project",
  description: "Runs the project's checks (tsc --noEmit, cargo check, …) on it or a folder.",
  input: {
    relative_path: searchScope,
    min_severity: z.enum(severities).default("error"),
    max_answer_chars: maxAnswerChars,
  },
  output,
  annotations: readOnly,
  // Compiler checks run one after another, each bounded (tsc 300 s, cargo 600 s): more than the default.
  deadlineSeconds: 1800,
  async run(args, ctx) {
    const project = ctx.project;
    const scope = project.sandbox.resolveName(args.relative_path === "" ? "." : args.relative_path, {
      mustExist: true,
    }).rel;
    const languages = new Set(await ctx.workspace.languagesDetected());
    const adapters = adaptersFor(project.config.language_servers, project.trust, {
      root: project.root,
      backend: project.config.typescript_backend,
    }).filter((a) => languages.has(a.id));
    const manifestNames = new Set(adapters.flatMap((a) => (a.projectCheck ? [a.projectCheck.manifest] : [])));
    const manifests = await findManifests(project, manifestNames, ctx.signal);
    const found: Found[] = [];
    const checked: Checked[] = [];
    const gaps: string[] = [];
    // One language after another: a compiler check takes the machine's cores by itself.
    for (const adapter of adapters) {
      const r = await checkLanguage(adapter, scope, manifests, ctx);
      found.push(...r.found);
      checked.push(...r.checked);
      gaps.push(...r.gaps);
    }
    if (adapters.length === 0) gaps.push("no language of this project has a server scalpel knows");
    const result = collect(found, scope, args.min_severity as Severity, ctx.project.sandbox);
    return {
      ...result,
      checked,
      complete: gaps.length === 0,
      ...(gaps.length > 0 ? { incomplete_reason: gaps.join("; ") } : {}),
    };
  },
  render(r) {
    const c = r.counts;
    const head = `${plural(c.error, "error")}, ${plural(c.warning, "warning")} in ${plural(r.file_count, "file")} (${r.checked.map((k) => `${k.how}${k.project ? ` [${k.project}]` : ""}`).join(", ") || "nothing checked"})${r.complete ? "" : ` (incomplete: ${r.incomplete_reason})`}`;
    const lines = [head];
    for (const f of r.files) {
      if (f.withheld !== undefined)
        lines.push(`${f.relative_path}: ${f.withheld} diagnostics (secret file, not shown)`);
      for (const d of f.diagnostics)
        lines.push(
          `${f.relative_path}:${d.line}:${d.column} ${d.severity}${d.code ? ` ${d.code}` : ""}: ${d.message}`,
        );
    }
    return lines.join("\n");
  },
  // Whole files leave the list, from the end, until the answer fits; the counts stay.
  shrink: Array.from({ length: 40 }, () => (r: Result) => dropFiles(r)),
  narrowHint:
    "Not every file fits in one answer; ask for a directory with relative_path, or min_severity: 'error'.",
});

function dropFiles(r: Result): Result {
  if (r.files.length <= 1) return r;
  const keep = Math.max(1, Math.floor(r.files.length * 0.7));
  const next = r.files[keep]!.relative_path;
  const dir = next.includes("/") ? next.slice(0, next.lastIndexOf("/")) : ".";
  return {
    ...r,
    files: r.files.slice(0, keep),
    hint: `Only the first ${keep} of ${r.file_count} files are listed (counts cover all). Ask again with relative_path set to a directory, e.g. '${dir}'.`,
  };
}

/** Groups by file inside `scope`, drops duplicates (cargo reports a lib's error for each target), counts. */
function collect(
  found: readonly Found[],
  scope: string,
  minSeverity: Severity,
  sandbox: Sandbox,
): Pick<Result, "files" | "file_count" | "counts"> {
  const counts = { error: 0, warning: 0, information: 0, hint: 0 };
  const limit = severities.indexOf(minSeverity);
  const byFile = new Map<string, { diagnostics: Diagnostic[]; secret: boolean; withheld: number }>();
  const seen = new Set<string>();
  const located = new Map<string, Located>();
  for (const f of found) {
    // One lookup per file, not per diagnostic: a broken build can report thousands.
    let where = located.get(f.file);
    if (!where) {
      where = sandbox.locate(f.file);
      located.set(f.file, where);
    }
    // Outside the project (a dependency's sources): not this project's to report.
    if (where.kind === "outside") continue;
    const rel = where.kind === "file" ? where.path.rel : where.rel;
    if (scope !== "." && rel !== scope && !rel.startsWith(`${scope}/`)) continue;
    const d = toDiagnostic(f.diagnostic, null);
    const key = `${rel}\0${d.line}\0${d.column}\0${d.code ?? ""}\0${d.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    counts[d.severity]++;
    if (severities.indexOf(d.severity as Severity) > limit) continue;
    let entry = byFile.get(rel);
    if (!entry) {
      entry = { diagnostics: [], secret: where.kind === "secret", withheld: 0 };
      byFile.set(rel, entry);
    }
    // A secret file's diagnostics quote its content: only the number of them is told.
    if (entry.secret) entry.withheld++;
    else entry.diagnostics.push(d);
  }
  const files = [...byFile.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([relative_path, e]) => ({
      relative_path,
      diagnostics: e.diagnostics.sort((a, b) => a.line - b.line || a.column - b.column),
      ...(e.secret ? { withheld: e.withheld } : {}),
    }));
  return { files, file_count: files.length, counts };
}
