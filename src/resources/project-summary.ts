/** `scalpel://project/summary`: what an agent needs to know about the active project, without host paths. */
import { memoryStoreOf } from "../memory/store.js";
import { projectFacts } from "../onboarding/facts.js";
import type { Workspace } from "../workspace/workspace.js";
import type { StaticResourceDef } from "./types.js";

export interface ProjectSummary {
  active: boolean;
  name?: string;
  read_only?: boolean;
  languages?: string[];
  servers?: Array<{ language: string; status: string }>;
  memory_dir?: string;
  memories?: string[];
  onboarding_performed?: boolean;
  top_level?: string[];
  build_files?: string[];
  entry_points?: string[];
  commands?: string[];
  /** e.g. `pnpm (pnpm-lock.yaml)`; absent without a package.json. */
  package_manager?: string;
  workspaces?: string[];
  /** What the manifests say beyond the lists above, e.g. `Go module example.com/shop: go 1.22, 3 direct requirements`. */
  notes?: string[];
  hint?: string;
}

export async function projectSummary(workspace: Workspace): Promise<ProjectSummary> {
  const project = workspace.project;
  if (!project) {
    return {
      active: false,
      hint: "No project is active. Call the activate_project tool with the project's root path.",
    };
  }
  const languages = await workspace.languagesDetected();
  const facts = await projectFacts(project, languages);
  const memories = await memoryStoreOf(project).names();
  return {
    active: true,
    name: project.name,
    read_only: project.readOnly,
    languages: [...languages],
    servers: project.pool
      .states()
      .filter((s) => languages.includes(s.language))
      .map((s) => ({ language: s.language, status: s.status })),
    memory_dir: project.config.memory_dir,
    memories,
    onboarding_performed: memories.length > 0,
    top_level: facts.topLevel,
    build_files: facts.manifests,
    entry_points: facts.entryPoints,
    commands: facts.commands,
    ...(facts.packageManager ? { package_manager: facts.packageManager } : {}),
    ...(facts.workspaces.length > 0 ? { workspaces: facts.workspaces } : {}),
    ...(facts.notes.length > 0 ? { notes: facts.notes } : {}),
  };
}

export const projectSummaryResource: StaticResourceDef = {
  name: "project-summary",
  uri: "scalpel://project/summary",
  title: "Active project summary",
  description:
    "The active project: name, languages, language servers and their status, memory names, top-level layout, build files, entry points and commands (all paths relative to the project root).",
  mimeType: "application/json",
  read: async (workspace) => `${JSON.stringify(await projectSummary(workspace), null, 2)}\n`,
};
