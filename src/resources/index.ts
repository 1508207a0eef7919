/** The one list of MCP resources and prompts; `server.ts` registers each of them. */
import { memoryResource } from "./memory-resource.js";
import { projectSummaryResource } from "./project-summary.js";
import { onboardingPrompt, refactorPrompt } from "./prompts.js";
import type { PromptDef, StaticResourceDef, TemplateResourceDef } from "./types.js";

export type { PromptDef, ResourceListing, StaticResourceDef, TemplateResourceDef } from "./types.js";

export const staticResources: readonly StaticResourceDef[] = [projectSummaryResource];
export const templateResources: readonly TemplateResourceDef[] = [memoryResource];
export const prompts: readonly PromptDef[] = [
  onboardingPrompt,
  refactorPrompt,
] as unknown as readonly PromptDef[];
