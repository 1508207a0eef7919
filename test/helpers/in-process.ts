/**
 * An MCP client ⇄ scalpel server pair in one process (InMemoryTransport), for integration tests
 * that drive a Workspace directly: connecting, calling a tool the way a host reads the result, and
 * closing both with the SCALPEL_HOME the test replaced put back.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { log } from "../../src/core/log.js";
import { createServer } from "../../src/server.js";
import type { Workspace } from "../../src/workspace/workspace.js";
import { sdkClient } from "./sdk-client.js";

export interface InProcessResult {
  isError: boolean;
  text: string;
  structured: Record<string, unknown> | undefined;
}

/** `prepare` runs on the client before it connects (notification handlers). */
export async function connectInProcess(
  workspace: Workspace,
  name: string,
  prepare?: (client: Client) => void,
): Promise<Client> {
  const server = createServer({ workspace, log });
  const [a, b] = InMemoryTransport.createLinkedPair();
  const client = sdkClient(name);
  prepare?.(client);
  await Promise.all([server.connect(a), client.connect(b)]);
  return client;
}

export async function callInProcess(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<InProcessResult> {
  const r = await client.callTool({ name, arguments: args });
  const content = (r.content ?? []) as Array<{ type: string; text?: string }>;
  return {
    isError: r.isError === true,
    text: content.map((c) => c.text ?? "").join("\n"),
    structured: r.structuredContent as Record<string, unknown> | undefined,
  };
}

/** Closes the pair and puts back the SCALPEL_HOME that was set before the test replaced it. */
export async function closeInProcess(
  client: Client | undefined,
  workspace: Workspace | undefined,
  savedHome: string | undefined,
): Promise<void> {
  await client?.close();
  await workspace?.shutdown();
  if (savedHome === undefined) delete process.env.SCALPEL_HOME;
  else process.env.SCALPEL_HOME = savedHome;
}
