/**
 * createServer(options) → an MCP server exposing the tool list. No I/O at import; the CLI connects
 * it to a transport.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Logger } from "./log.js";
import { toolsFor } from "./tools/index.js";
import { serverInstructions } from "./tools/instructions.js";
import { runTool } from "./tools/run-tool.js";
import { version } from "./version.js";
import type { Workspace } from "./workspace.js";

export interface ServerOptions {
  workspace: Workspace;
  log: Logger;
}

export function createServer(options: ServerOptions): McpServer {
  const { workspace, log } = options;
  const server = new McpServer(
    { name: "scalpel", version },
    { instructions: serverInstructions, capabilities: { logging: {} } },
  );
  const tools = toolsFor(workspace.options.readOnly);
  const toolNames = tools.map((t) => t.name);
  for (const def of tools) {
    server.registerTool(
      def.name,
      {
        title: def.title,
        description: def.description,
        inputSchema: def.input,
        outputSchema: def.output,
        annotations: { ...def.annotations, openWorldHint: false, title: def.title },
      },
      async (args: unknown, extra) => {
        const token = extra._meta?.progressToken;
        let step = 0;
        const progress =
          token === undefined
            ? undefined
            : (message: string, done?: number, total?: number) => {
                step++;
                extra
                  .sendNotification({
                    method: "notifications/progress",
                    params: {
                      progressToken: token,
                      progress: done ?? step,
                      ...(total ? { total } : {}),
                      message,
                    },
                  })
                  .catch(() => {});
              };
        return runTool(def, args, {
          workspace,
          log,
          signal: extra.signal,
          toolNames,
          ...(progress ? { progress } : {}),
        });
      },
    );
  }
  return server;
}

/** Serves on stdin/stdout; `onClose` runs when the client goes away. */
export async function serveStdio(server: McpServer, onClose: () => void): Promise<void> {
  const transport = new StdioServerTransport();
  transport.onclose = onClose;
  await server.connect(transport);
}
