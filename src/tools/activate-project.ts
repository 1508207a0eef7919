import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import type { Project } from "../project/project.js";
import { defineTool, readOnly } from "./tool.js";

const serverSchema = z.object({
  language: z.string(),
  status: z.enum(["starting", "ready", "failed", "missing", "stopped"]),
  detail: z.string().optional(),
});

/** Longest wait for servers when the client asked for progress. */
const readyWaitMs = 120_000;

/** Memory names in the project's memory folder (the memory store itself comes with issue #3). */
async function memoryNames(project: Project): Promise<string[]> {
  const dir = join(project.root, ".scalpel", "memories");
  const out: string[] = [];
  const visit = async (rel: string) => {
    const entries = await readdir(join(dir, rel), { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      const name = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await visit(name);
      else if (e.name.endsWith(".md")) out.push(name.slice(0, -3));
    }
  };
  await visit("");
  return out.sort();
}

export const activateProjectTool = defineTool({
  name: "activate_project",
  title: "Activate project",
  description:
    "Makes a directory the active project: detects its languages and starts their language servers in the background. Call it first (unless scalpel was started with --project). If the client sends a progress token, the call waits until the servers are ready and reports their progress.",
  input: {
    project: z
      .string()
      .min(1)
      .describe("The project's root directory: absolute, or relative to scalpel's working directory"),
  },
  output: {
    name: z.string(),
    languages: z.array(z.string()),
    servers: z.array(serverSchema),
    memories: z.array(z.string()),
    onboarding_performed: z.boolean(),
    instructions: z.string(),
  },
  // Starting language servers reads the project but changes nothing in it.
  annotations: readOnly,
  async run(args, ctx) {
    const project = await ctx.workspace.activate(args.project);
    if (ctx.wantsProgress) {
      project.pool.setProgressSink((m) => ctx.progress(m));
      await project.pool.waitUntilSettled(readyWaitMs, ctx.signal);
      project.pool.setProgressSink(null);
    }
    const memories = await memoryNames(project);
    const servers = project.pool
      .states()
      .filter((s) => ctx.workspace.languages.includes(s.language))
      .map((s) => ({ language: s.language, status: s.status, ...(s.detail ? { detail: s.detail } : {}) }));
    const onboarded = memories.length > 0;
    const langs = ctx.workspace.languages;
    const instructions = [
      `Project '${project.name}' is active${langs.length > 0 ? ` (${langs.join(", ")})` : " (no language with a known server was found)"}.`,
      onboarded
        ? `Memories exist (${memories.join(", ")}): read the relevant ones with read_memory before exploring.`
        : "No memories yet: onboarding is recommended — call onboarding for what to explore and which notes to write.",
      servers.some((s) => s.status === "starting")
        ? "Language servers are starting; symbol tools wait for them automatically."
        : "",
      "Call initial_instructions once if you have not yet.",
    ]
      .filter(Boolean)
      .join(" ");
    return {
      name: project.name,
      languages: langs,
      servers,
      memories,
      onboarding_performed: onboarded,
      instructions,
    };
  },
  render: (r) =>
    [
      `${r.name}: ${r.languages.join(", ") || "no languages"}`,
      ...r.servers.map((s) => `  ${s.language}: ${s.status}${s.detail ? ` (${s.detail})` : ""}`),
      r.instructions,
    ].join("\n"),
});
