/**
 * MCP resources and prompts as plain data and callbacks. `server.ts` (the only file that imports the
 * MCP SDK) registers them; everything here is testable without a transport.
 */
import type { z } from "zod";
import type { Workspace } from "../workspace/workspace.js";

export interface StaticResourceDef {
  name: string;
  uri: string;
  title: string;
  description: string;
  mimeType: string;
  read(workspace: Workspace): Promise<string>;
}

export interface ResourceListing {
  uri: string;
  name: string;
  title?: string;
  description?: string;
}

export interface TemplateResourceDef {
  name: string;
  /** RFC 6570; simple `{var}` expansions percent-encode '/', so names with topic folders round-trip. */
  uriTemplate: string;
  title: string;
  description: string;
  mimeType: string;
  list(workspace: Workspace): Promise<ResourceListing[]>;
  read(workspace: Workspace, variables: Record<string, string>): Promise<string>;
}

export interface PromptDef<A extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  /** Prompt arguments are strings in MCP. */
  args: A;
  /** The text of the single user message the prompt expands to. */
  build(workspace: Workspace, args: z.infer<z.ZodObject<A>>): Promise<string>;
}

/** Keeps the literal argument shape while checking the object against PromptDef. */
export function definePrompt<A extends z.ZodRawShape>(def: PromptDef<A>): PromptDef<A> {
  return def;
}
