import { z } from "zod";
import { changeImpact } from "../change-impact/impact.js";
import type { AffectedSymbol } from "../change-impact/outcome.js";
import { plural } from "../core/words.js";
import { diagnosticCount } from "../diagnostics/diagnostic.js";
import { isTestFile } from "../languages/test-files.js";
import type { Project } from "../project/project.js";
import { groupReferences, referenceFileSchema, renderGrouped } from "../references/listing.js";
import { outlineFileSchema, renderOutlineFiles } from "../symbols/outline.js";
import { defineTool, readOnly } from "./kit/define.js";
import { completeness, excludeTests, maxAnswerChars, offset } from "./kit/params.js";

/** Sites listed per affected symbol (`sites` counts them all; find_referencing_symbols lists the rest). */
const listedSites = 40;

const changeKinds = ["added", "removed", "body", "signature", "renamed"] as const;
const reasons = ["removed", "renamed", "signature", "member_added", "member_removed"] as const;

const affectedSchema = z.object({
  name_path: z.string(),
  relative_path: z.string().describe("where it is declared (a removed symbol: was)"),
  reason: z.enum(reasons),
  sites: z.number().int().optional().describe("its reference sites outside the change; absent: not asked"),
  files: z.array(referenceFileSchema).describe(`up to ${listedSites} of those sites, by file`),
  tests: z.array(z.string()).optional().describe("test files among them"),
  implementations: z.array(outlineFileSchema).optional(),
});

/** An affected symbol as the answer gives it: its users as find_referencing_symbols lists them. */
function shown(project: Project, a: AffectedSymbol): z.infer<typeof affectedSchema> {
  const users = a.users;
  const tests = [...new Set((users ?? []).map((r) => r.relative_path))].filter((p) =>
    isTestFile(project.pool, p),
  );
  return {
    name_path: a.name_path,
    relative_path: a.relative_path,
    reason: a.reason,
    ...(users ? { sites: users.length } : {}),
    files: groupReferences((users ?? []).slice(0, listedSites)),
    ...(tests.length > 0 ? { tests } : {}),
    ...(a.implementations ? { implementations: a.implementations } : {}),
  };
}

export const getChangeImpactTool = defineTool({
  name: "get_change_impact",
  title: "Change impact",
  description: "Work tree vs a base commit: changed symbols, their users outside the change, errors now.",
  input: {
    base: z.string().default("HEAD"),
    paths: z.array(z.string()).default([]),
    exclude_tests: excludeTests,
    max_answer_chars: maxAnswerChars,
    offset,
  },
  output: {
    base: z.string(),
    changed: z.array(
      z.object({
        relative_path: z.string(),
        status: z.enum(["added", "modified", "deleted", "renamed"]),
        from: z.string().optional(),
        symbols: z.array(
          z.object({
            name_path: z.string(),
            change: z.enum(changeKinds),
            from: z.string().optional(),
            users: z.number().int().optional().describe("a body change's users outside the change"),
          }),
        ),
      }),
    ),
    affected: z.array(affectedSchema).describe("from offset on; total counts them all"),
    diagnostics: z
      .array(z.object({ relative_path: z.string(), diagnostics: z.array(z.string()) }))
      .describe("errors now in the changed files and the users' files"),
    ...completeness,
  },
  annotations: readOnly,
  deadlineSeconds: 900,
  paging: { items: "affected", noun: "affected symbol" },
  narrowHint: "Or narrow with paths.",
  async run(args, ctx) {
    const impact = await changeImpact({
      project: ctx.project,
      base: args.base,
      paths: args.paths,
      includeTests: !args.exclude_tests,
      signal: ctx.signal,
    });
    const affected = impact.affected.map((a) => shown(ctx.project, a));
    return {
      base: impact.base,
      changed: impact.changed,
      affected: affected.slice(args.offset),
      total: affected.length,
      diagnostics: impact.diagnostics,
      complete: impact.gaps.length === 0,
      ...(impact.gaps.length > 0 ? { incomplete_reason: impact.gaps.join("; ") } : {}),
    };
  },
  render(r) {
    const symbols = r.changed.reduce((n, f) => n + f.symbols.length, 0);
    const errors = r.diagnostics.reduce(
      (n, f) => n + f.diagnostics.reduce((k, l) => k + diagnosticCount(l), 0),
      0,
    );
    const out = [
      `Change against ${r.base}: ${plural(r.changed.length, "file")}, ${plural(symbols, "symbol")} changed, ${plural(r.total ?? r.affected.length, "affected symbol")}, ${plural(errors, "error")}${r.complete ? "" : ` — incomplete: ${r.incomplete_reason}`}`,
    ];
    for (const f of r.changed) {
      out.push(`${f.relative_path} ${f.status}${f.from ? ` from ${f.from}` : ""}`);
      for (const s of f.symbols) {
        const users = s.users === undefined ? "" : ` (${plural(s.users, "user")})`;
        out.push(`  ${s.name_path}  ${s.change}${s.from ? ` from ${s.from}` : ""}${users}`);
      }
    }
    if (r.affected.length > 0) out.push("", "Affected (users outside the change):");
    for (const a of r.affected) {
      const count = a.sites === undefined ? "users not asked" : plural(a.sites, "site");
      const more = a.sites !== undefined && a.sites > listedSites ? `, first ${listedSites} listed` : "";
      out.push(
        `${a.name_path} [${a.reason}] ${a.relative_path}: ${count}${more}${a.tests ? ` (tests: ${a.tests.join(", ")})` : ""}`,
      );
      out.push(...renderGrouped(a.files).map((l) => `  ${l}`));
      if (a.implementations) {
        out.push(
          "  implementations:",
          ...renderOutlineFiles(a.implementations).map((l) => `    ${l.replace(/\n/g, "\n    ")}`),
        );
      }
    }
    if (r.diagnostics.length > 0) out.push("", "Errors now:");
    for (const d of r.diagnostics)
      out.push(d.relative_path, ...d.diagnostics.map((l) => `  ${l.replace(/\n/g, "\n    ")}`));
    return out.join("\n");
  },
});
