import { z } from "zod";
import { plural } from "../core/words.js";
import { diagnosticSchema, severities, toDiagnostic } from "../diagnostics/diagnostic.js";
import { answeringProject } from "../servers/answering-project.js";
import { fileSymbols } from "../symbols/access.js";
import { defineTool, readOnly } from "./kit/define.js";
import { completeness } from "./kit/params.js";
import { projectFields, projectOutput } from "./kit/project-fields.js";

type Severity = (typeof severities)[number];

export const getDiagnosticsForFileTool = defineTool({
  name: "get_diagnostics_for_file",
  title: "Diagnostics for a file",
  description: "The compiler's errors and warnings for one file as on disk now. Call it after an edit.",
  input: {
    relative_path: z.string(),
    min_severity: z.enum(severities).default("hint"),
    start_line: z.number().int().min(1).optional(),
    end_line: z.number().int().min(1).optional(),
  },
  output: {
    relative_path: z.string(),
    diagnostics: z.array(diagnosticSchema),
    ...projectFields,
    ...completeness,
  },
  annotations: readOnly,
  narrowHint:
    "Not all diagnostics fit in one answer; ask for fewer with min_severity: 'error' or a start_line/end_line range.",
  async run(args, ctx) {
    const project = ctx.project;
    const path = project.sandbox.resolve(args.relative_path, { mustExist: true, kind: "file" });
    const file = await fileSymbols(project, path, ctx.signal);
    const result = await file.session.diagnostics(path.abs);
    const limit = severities.indexOf(args.min_severity as Severity);
    const diagnostics = result.diagnostics
      .filter((d) => args.start_line === undefined || d.range.end.line + 1 >= args.start_line)
      .map((d) => toDiagnostic(d, file.roots))
      .filter((d) => severities.indexOf(d.severity as Severity) <= limit)
      .filter((d) => args.end_line === undefined || d.line <= args.end_line)
      .sort((a, b) => a.line - b.line || a.column - b.column);
    // Which tsconfig / Cargo package checked the file: a file in none is checked with defaults.
    const answered = await answeringProject({
      sandbox: project.sandbox,
      adapter: file.adapter,
      server: file.session,
      file: { abs: path.abs, uri: file.doc.uri },
      log: project.log,
      signal: ctx.signal,
    });
    return {
      relative_path: path.rel,
      diagnostics,
      ...projectOutput(answered),
      complete: result.complete,
      ...(result.incompleteReason ? { incomplete_reason: result.incompleteReason } : {}),
    };
  },
  render(r) {
    const from = r.project === undefined ? "" : ` [project: ${r.project ?? "none"}]`;
    const head = `${r.relative_path}: ${plural(r.diagnostics.length, "diagnostic")}${from}${r.complete ? "" : ` (incomplete: ${r.incomplete_reason})`}${r.project_note ? `\n(${r.project_note})` : ""}`;
    return [
      head,
      ...r.diagnostics.map(
        (d) =>
          `${d.line}:${d.column} ${d.severity}${d.code ? ` ${d.code}` : ""}: ${d.message}${d.symbol ? ` (in ${d.symbol})` : ""}`,
      ),
    ].join("\n");
  },
});
