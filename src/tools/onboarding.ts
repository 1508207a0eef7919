import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import type { Project } from "../project/project.js";
import { defineTool, readOnly } from "./tool.js";

/** The facts onboarding instructions are built from: what is visible without a language server. */
async function projectFacts(project: Project, languages: string[]): Promise<string[]> {
  const facts: string[] = [];
  if (languages.length > 0) facts.push(`Languages with a server: ${languages.join(", ")}.`);
  const top = await readdir(project.root, { withFileTypes: true }).catch(() => []);
  const visible = top
    .filter((e) => !project.ignore.isIgnored(e.name, e.isDirectory()) && !e.name.startsWith("."))
    .map((e) => (e.isDirectory() ? `${e.name}/` : e.name))
    .sort();
  if (visible.length > 0) facts.push(`Top level: ${visible.slice(0, 40).join(", ")}.`);
  try {
    const pkg = JSON.parse(await readFile(join(project.root, "package.json"), "utf8")) as {
      scripts?: Record<string, string>;
      main?: string;
      bin?: unknown;
      exports?: unknown;
    };
    const scripts = Object.entries(pkg.scripts ?? {}).map(([k, v]) => `npm run ${k} (${v})`);
    if (scripts.length > 0) facts.push(`package.json scripts: ${scripts.slice(0, 20).join("; ")}.`);
    const entries = [pkg.main, typeof pkg.bin === "string" ? pkg.bin : undefined].filter(Boolean);
    if (entries.length > 0) facts.push(`Entry points from package.json: ${entries.join(", ")}.`);
  } catch {
    // No package.json: nothing to report from it.
  }
  return facts;
}

export const onboardingTool = defineTool({
  name: "onboarding",
  title: "Onboarding instructions",
  description:
    "Returns concrete instructions for getting to know this project — what to explore with which tools and which memories to write — built from what scalpel sees (languages, layout, build and test commands). Call it when activate_project says onboarding is recommended.",
  input: {},
  output: { instructions: z.string() },
  annotations: readOnly,
  async run(_args, ctx) {
    const project = ctx.project;
    const facts = await projectFacts(project, ctx.workspace.languages);
    const instructions = [
      `# Onboarding '${project.name}'`,
      "",
      "What scalpel sees:",
      ...facts.map((f) => `- ${f}`),
      "",
      "Explore, in this order:",
      "1. list_dir on the root and the main source folders; read the README with read_file.",
      "2. get_symbols_overview on the main source folders (depth 0), then on the central files (depth 1).",
      "3. find_referencing_symbols on two or three central classes or functions to learn how the parts connect.",
      "4. Find how to build, test, lint and run (package scripts, Makefile, CI config).",
      "",
      "Then write these memories with write_memory (short, factual markdown; name files and symbols by name path):",
      "- overview: what the project does, its main parts and entry points.",
      "- architecture: modules and how they depend on each other; where the core logic lives.",
      "- commands: exact commands to build, test, lint, run.",
      "- conventions: code style, naming, error handling, testing patterns.",
      "- gotchas: anything surprising you had to find out the hard way.",
    ].join("\n");
    return { instructions };
  },
  render: (r) => r.instructions,
});
