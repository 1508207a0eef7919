/**
 * createServer(options) → an MCP server exposing the tool list. No I/O at import; the CLI connects
 * it to a transport.
 */
import { McpServer, type RegisteredTool, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { deserializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { type Logger, log as rootLog } from "./core/log.js";
import { version } from "./core/version.js";
import { reportWaitsTo, throttled } from "./lsp/readiness.js";
import { serverInstructions } from "./onboarding/manual.js";
import type { Project } from "./project/project.js";
import { prompts, staticResources, templateResources } from "./resources/index.js";
import { scrubPaths } from "./security/scrub.js";
import { StdioLineTransport } from "./stdio-transport.js";
import { startIndexing, whileToolRuns } from "./symbols/index-build.js";
import { allTools, toolsFor } from "./tools/index.js";
import { compactToolList } from "./tools/kit/compact-list.js";
import { writesFiles } from "./tools/kit/define.js";
import { outputShapeOf } from "./tools/kit/envelope.js";
import { inputObject } from "./tools/kit/input.js";
import { runTool, sdkToolError } from "./tools/kit/run.js";
import type { Workspace } from "./workspace/workspace.js";

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
  routeSdkToolErrors(server);
  const tools = toolsFor(workspace.options.readOnly);
  const writers: RegisteredTool[] = [];
  // Names of the tools a call can reach now: a read-only project disables the writing ones.
  const toolNames = () =>
    tools.filter((t) => !writesFiles(t) || !workspace.project?.readOnly).map((t) => t.name);
  for (const def of tools) {
    const registered = server.registerTool(
      def.name,
      {
        title: def.title,
        description: def.description,
        // Strict: an unknown parameter is refused by name before the handler runs (input.ts), and
        // tools/list says `additionalProperties: false`.
        inputSchema: inputObject(def),
        // The one place a tool's output schema gains the envelope's fields (truncated, hint).
        outputSchema: outputShapeOf(def.output),
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
        const run = () =>
          whileToolRuns(() =>
            runTool(def, args, {
              workspace,
              log,
              signal: extra.signal,
              toolNames: toolNames(),
              ...(progress ? { progress } : {}),
            }),
          );
        if (!progress) return run();
        // A call that waits on a language server (start, project load, indexing, diagnostics)
        // tells the client what it waits for, at most 4 times a second.
        const waits = throttled((message) => progress(message));
        try {
          return await reportWaitsTo(waits.listener, run);
        } finally {
          waits.stop();
        }
      },
    );
    if (writesFiles(def)) writers.push(registered);
  }
  // `read_only: true` in a project's config is only known once it is activated, possibly after
  // start-up: writing tools are then disabled (clients get tools/list_changed) and re-enabled for a
  // project that allows writes.
  const syncWriters = () => {
    const readOnly = workspace.project?.readOnly === true;
    for (const tool of writers) {
      if (readOnly && tool.enabled) tool.disable();
      else if (!readOnly && !tool.enabled) tool.enable();
    }
  };
  syncWriters();
  workspace.onActivate(syncWriters);
  compactToolList(server);
  // The persistent symbol index fills in the background for each activated project, with the
  // servers its activation starts: those are known once the project's languages are counted.
  const indexWhenStarted = (project: Project) =>
    void workspace.languagesDetected().then(() => {
      if (workspace.project === project) startIndexing(project);
    });
  if (workspace.project) indexWhenStarted(workspace.project);
  workspace.onActivate(indexWhenStarted);
  registerResourcesAndPrompts(server, workspace);
  return server;
}

/**
 * The SDK turns a call it rejects before our handler runs (arguments that fail the input schema, an
 * unknown or disabled tool) into an error result with a bare text, through one private method of
 * McpServer (1.32: createToolError). Routing it through our wrapper gives those errors the same
 * `Error (<code>): … what to do` text as every other error. The contract test checks the result, so
 * an SDK that drops the method is noticed.
 */
function routeSdkToolErrors(server: McpServer): void {
  const target = server as unknown as { createToolError?: (message: string) => unknown };
  // In --read-only mode the writing tools are not registered: a call to one is told why.
  const writing = allTools.filter(writesFiles).map((t) => t.name);
  if (typeof target.createToolError === "function") {
    target.createToolError = (message: string) => sdkToolError(message, writing);
  }
}

function registerResourcesAndPrompts(server: McpServer, workspace: Workspace): void {
  // Resource errors become JSON-RPC errors; like tool errors they must not carry host paths.
  const guarded = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (e) {
      throw new Error(scrubPaths(e instanceof Error ? e.message : String(e), workspace.project?.root));
    }
  };
  for (const def of staticResources) {
    server.registerResource(
      def.name,
      def.uri,
      { title: def.title, description: def.description, mimeType: def.mimeType },
      async (uri) => ({
        contents: [{ uri: uri.href, mimeType: def.mimeType, text: await guarded(() => def.read(workspace)) }],
      }),
    );
  }
  for (const def of templateResources) {
    const template = new ResourceTemplate(def.uriTemplate, {
      list: async () => ({
        resources: (await guarded(() => def.list(workspace))).map((r) => ({ ...r, mimeType: def.mimeType })),
      }),
    });
    server.registerResource(
      def.name,
      template,
      { title: def.title, description: def.description, mimeType: def.mimeType },
      async (uri, variables) => {
        const vars = Object.fromEntries(
          Object.entries(variables).map(([k, v]) => [k, Array.isArray(v) ? v.join(",") : String(v)]),
        );
        return {
          contents: [
            { uri: uri.href, mimeType: def.mimeType, text: await guarded(() => def.read(workspace, vars)) },
          ],
        };
      },
    );
  }
  for (const def of prompts) {
    server.registerPrompt(
      def.name,
      { title: def.title, description: def.description, argsSchema: def.args },
      async (args: unknown) => ({
        messages: [
          {
            role: "user" as const,
            content: {
              type: "text" as const,
              text: await guarded(() => def.build(workspace, args as never)),
            },
          },
        ],
      }),
    );
  }
}

/**
 * Serves on stdin/stdout; `onClose` runs when the client goes away. The transport is ours
 * (`stdio-transport.ts`): the SDK's exits on a request over 10 MiB, ours answers it with an error.
 */
export async function serveStdio(server: McpServer, onClose: () => void): Promise<void> {
  await serveStream(server, process.stdin, process.stdout, onClose);
}

/**
 * Serves one session over a byte stream pair (a daemon's socket connection: src/daemon.ts), framed
 * as on stdio. `close()` of the handle ends the session's transport.
 */
export async function serveStream(
  server: McpServer,
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
  onClose: () => void,
): Promise<{ close(): Promise<void> }> {
  const stdio = rootLog.child("stdio");
  const transport = new StdioLineTransport<JSONRPCMessage>(
    deserializeMessage,
    { warn: (m) => stdio.warn(m) },
    input,
    output,
  );
  transport.onclose = onClose;
  await server.connect(transport);
  return { close: () => server.close() };
}
