/** `scalpel://memory/{name}`: each memory as a markdown resource, listed from the memory folder. */
import { AppError } from "../core/errors.js";
import { handedOver, memoryStoreOf } from "../memory/store.js";
import type { Workspace } from "../workspace/workspace.js";
import type { TemplateResourceDef } from "./types.js";

export function memoryUri(name: string): string {
  return `scalpel://memory/${encodeURIComponent(name)}`;
}

function activeProject(workspace: Workspace) {
  const project = workspace.project;
  if (!project) {
    throw new AppError("no_active_project", "No project is active. Call activate_project first.");
  }
  return project;
}

export const memoryResource: TemplateResourceDef = {
  name: "memory",
  uriTemplate: "scalpel://memory/{name}",
  title: "Project memory",
  description:
    "A markdown memory of the active project (notes from earlier sessions). Names with topic folders are percent-encoded: 'topics/build' is scalpel://memory/topics%2Fbuild.",
  mimeType: "text/markdown",
  async list(workspace) {
    // Listing without an active project is not an error: there is just nothing to list.
    const project = workspace.project;
    if (!project) return [];
    const memories = await memoryStoreOf(project).list();
    return memories.map((m) => ({
      uri: memoryUri(m.name),
      name: m.name,
      description: `Memory '${m.name}' (${m.bytes} bytes, updated ${m.updated})`,
    }));
  },
  async read(workspace, variables) {
    let name: string;
    try {
      name = decodeURIComponent(variables.name ?? "");
    } catch {
      throw new AppError("invalid_argument", "The memory name in the URI is not valid percent-encoding.");
    }
    const project = activeProject(workspace);
    return handedOver(await memoryStoreOf(project).read(name), project.trust.trusted).content;
  },
};
