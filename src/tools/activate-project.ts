import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { z } from "zod";
import { AppError, isAppError } from "../errors.js";
import { withoutWaitReports } from "../lsp/readiness.js";
import { memoryStoreOf } from "../memory/store.js";
import { isProjectName, ProjectRegistry } from "../project/registry.js";
import { defineTool, readOnly } from "./tool.js";

const serverSchema = z.object({
  language: z.string(),
  status: z.enum(["starting", "ready", "failed", "missing", "stopped"]),
  detail: z.string().optional(),
});

/** Longest wait for servers when the client asked for progress. */
const readyWaitMs = 120_000;

/** An argument that is not an existing directory but a registered name → that project's root. */
async function resolveProjectArg(
  arg: string,
  cwd: string,
  registry: ProjectRegistry,
): Promise<string | null> {
  if (!isProjectName(arg)) return null;
  const asPath = await stat(resolve(cwd, arg)).catch(() => null);
  if (asPath?.isDirectory()) return null;
  const root = await registry.lookup(arg);
  if (root === null) return null;
  if (!(await stat(root).catch(() => null))?.isDirectory()) {
    throw new AppError(
      "file_not_found",
      `Project '${arg}' is registered, but its directory no longer exists. Activate the project by its path; that registers it again.`,
    );
  }
  return root;
}

export const activateProjectTool = defineTool({
  name: "activate_project",
  title: "Activate project",
  description:
    "Makes a directory the active project: detects its languages and starts their language servers in the background, and lists the project's memories. Call it first (unless scalpel was started with --project). A project activated once by path can later be activated by its name. If the client sends a progress token, the call waits until the servers are ready and reports their progress.",
  input: {
    project: z
      .string()
      .min(1)
      .describe(
        "The project's root directory (absolute, or relative to scalpel's working directory), or the name of a project activated before",
      ),
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
    const registry = new ProjectRegistry();
    const registered = await resolveProjectArg(args.project, ctx.workspace.options.cwd, registry);
    let project: Awaited<ReturnType<typeof ctx.workspace.activate>>;
    try {
      project = await ctx.workspace.activate(registered ?? args.project);
    } catch (error) {
      if (
        isAppError(error) &&
        error.code === "file_not_found" &&
        registered === null &&
        isProjectName(args.project)
      ) {
        const names = await registry.names();
        error.message += ` No project is registered under the name '${args.project}' either${names.length > 0 ? ` (registered: ${names.join(", ")})` : ""}.`;
      }
      throw error;
    }
    if (registered === null) {
      // Activation by path makes the name usable next time; a registry problem must not stop the work.
      await registry
        .register(project.name, project.root)
        .catch((e: unknown) =>
          ctx.log.warn("cannot update the project registry", e instanceof Error ? e.message : e),
        );
    }
    if (ctx.wantsProgress) {
      project.pool.setProgressSink((m) => ctx.progress(m));
      // The pool's sink reports every server's start and progress; the per-call wait reports
      // would repeat the same lines.
      await withoutWaitReports(() => project.pool.waitUntilSettled(readyWaitMs, ctx.signal));
      project.pool.setProgressSink(null);
    }
    const memories = await memoryStoreOf(project).names();
    const servers = project.pool
      .states()
      .filter((s) => ctx.workspace.languages.includes(s.language))
      .map((s) => ({ language: s.language, status: s.status, ...(s.detail ? { detail: s.detail } : {}) }));
    const onboarded = memories.length > 0;
    const langs = ctx.workspace.languages;
    const instructions = [
      `Project '${project.name}' is active${langs.length > 0 ? ` (${langs.join(", ")})` : " (no language with a known server was found)"}.`,
      onboarded
        ? `Onboarding was already performed: memories exist (${memories.join(", ")}). Read the relevant ones with read_memory before exploring.`
        : "No memories yet: onboarding is recommended — call onboarding for what to explore and which memories to write.",
      servers.some((s) => s.status === "starting")
        ? "Language servers are starting; symbol tools wait for them automatically."
        : "",
      project.readOnly
        ? "The project is read-only: tools that write files or memories are not available."
        : "",
      "Call initial_instructions once if you have not yet.",
      project.config.initial_prompt ? `Project instructions: ${project.config.initial_prompt.trim()}` : "",
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
      `memories: ${r.memories.join(", ") || "none"}`,
      r.instructions,
    ].join("\n"),
});
