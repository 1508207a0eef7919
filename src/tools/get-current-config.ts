import { z } from "zod";
import { version } from "../core/version.js";
import { defineTool, readOnly } from "./kit/define.js";

export const getCurrentConfigTool = defineTool({
  name: "get_current_config",
  title: "Current configuration",
  description: "Active project, its language servers, tools, version: for when a language gets no answers.",
  input: {},
  output: {
    project: z
      .object({ name: z.string(), languages: z.array(z.string()), read_only: z.boolean() })
      .nullable(),
    servers: z.array(
      z.object({
        language: z.string(),
        command: z.string(),
        status: z.string(),
        detail: z.string().optional(),
        pid: z.number().int().optional(),
        uptime_s: z.number().optional(),
        restarts: z.number().int(),
      }),
    ),
    tools: z.array(z.string()),
    version: z.string(),
  },
  annotations: readOnly,
  async run(_args, ctx) {
    const p = ctx.workspace.project;
    const langs = await ctx.workspace.languagesDetected();
    return {
      project: p ? { name: p.name, languages: langs, read_only: p.readOnly } : null,
      // The project's languages, plus servers started for other files; not every known adapter.
      servers: p
        ? p.pool
            .states()
            .filter((s) => langs.includes(s.language) || (s.status !== "stopped" && s.status !== "missing"))
        : [],
      tools: ctx.toolNames,
      version,
    };
  },
  render: (r) =>
    [
      `scalpel ${r.version}`,
      r.project
        ? `project: ${r.project.name} (${r.project.languages.join(", ")})${r.project.read_only ? " read-only" : ""}`
        : "no active project",
      ...r.servers.map(
        (s) =>
          `  ${s.language}: ${s.status}${s.pid ? ` pid ${s.pid}` : ""}${s.uptime_s !== undefined ? ` up ${s.uptime_s}s` : ""}${s.restarts ? ` restarts ${s.restarts}` : ""} — ${s.command}${s.detail ? ` (${s.detail})` : ""}`,
      ),
      `tools: ${r.tools.join(", ")}`,
    ].join("\n"),
});
