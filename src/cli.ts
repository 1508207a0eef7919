#!/usr/bin/env node
/**
 * argv → MCP server, doctor, or one tool run from a terminal. The only place that exits the process.
 */
import type { z } from "zod";
import { doctorReport } from "./doctor.js";
import { isAppError } from "./errors.js";
import { log } from "./log.js";
import { killAllServersSync } from "./lsp/process.js";
import { createServer, serveStdio } from "./server.js";
import { toolsFor } from "./tools/index.js";
import { runTool } from "./tools/run-tool.js";
import { version } from "./version.js";
import { Workspace } from "./workspace.js";

const usage = `scalpel ${version} — type-precise code tools for coding agents (MCP)

Usage:
  scalpel mcp [--project PATH] [--read-only]     MCP server on stdio
  scalpel doctor [--project PATH]                which language servers are installed
  scalpel <tool> --project PATH [--param value …]  run one tool and print its result
  scalpel tools                                  list the tools
Values are JSON when they parse as JSON (numbers, true/false, arrays), strings otherwise.
`;

interface Parsed {
  command: string | undefined;
  flags: Map<string, string | true>;
}

function parseArgs(argv: readonly string[]): Parsed {
  const flags = new Map<string, string | true>();
  let command: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      if (eq > 0) flags.set(a.slice(2, eq), a.slice(eq + 1));
      else {
        const next = argv[i + 1];
        if (next !== undefined && !next.startsWith("--")) {
          flags.set(a.slice(2), next);
          i++;
        } else flags.set(a.slice(2), true);
      }
    } else if (command === undefined) command = a;
  }
  return { command, flags };
}

function flagString(flags: Parsed["flags"], name: string): string | undefined {
  const v = flags.get(name);
  return typeof v === "string" ? v : undefined;
}

function installExitHandlers(workspace: Workspace): void {
  // Whatever ends the process, no language server may outlive it.
  process.on("exit", () => killAllServersSync());
  let stopping = false;
  const stop = (code: number) => {
    if (stopping) return;
    stopping = true;
    const force = setTimeout(() => process.exit(code), 4000);
    force.unref();
    workspace
      .shutdown()
      .catch((e: unknown) => log.warn("shutdown failed", e))
      .finally(() => process.exit(code));
  };
  process.on("SIGINT", () => stop(130));
  process.on("SIGTERM", () => stop(143));
  process.on("SIGHUP", () => stop(129));
  process.stdin.on("end", () => stop(0));
  process.stdin.on("close", () => stop(0));
}

async function serveMcp(flags: Parsed["flags"]): Promise<void> {
  const workspace = new Workspace({ readOnly: flags.has("read-only"), cwd: process.cwd() }, log);
  installExitHandlers(workspace);
  const project = flagString(flags, "project");
  if (project !== undefined) {
    // A project that cannot be activated (bad project.yml, missing directory) must not keep the
    // server from starting: the client would only see a dead process. Calls explain it instead.
    await workspace.activate(project).catch((e: unknown) => {
      workspace.startupError = isAppError(e) ? e.message : "the project could not be activated";
      log.error(`cannot activate ${project}: ${workspace.startupError}`);
    });
  }
  const server = createServer({ workspace, log });
  await serveStdio(server, () => {
    void workspace.shutdown().finally(() => process.exit(0));
  });
  log.info(`scalpel ${version} ready on stdio${project ? ` for ${workspace.project?.name}` : ""}`);
}

function coerce(schema: z.ZodType, raw: string | true): unknown {
  if (raw === true) return true;
  if (schema.safeParse(raw).success) return raw;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

async function runOnce(name: string, flags: Parsed["flags"]): Promise<number> {
  const workspace = new Workspace({ readOnly: flags.has("read-only"), cwd: process.cwd() }, log);
  const tools = toolsFor(workspace.options.readOnly);
  const def = tools.find((t) => t.name === name);
  if (!def) {
    process.stderr.write(`Unknown command or tool '${name}'.\n\n${usage}`);
    return 2;
  }
  process.on("exit", () => killAllServersSync());
  const args: Record<string, unknown> = {};
  for (const [key, value] of flags) {
    if (key === "project" || key === "read-only") continue;
    const shape = def.input[key];
    if (!shape) {
      process.stderr.write(
        `${name} has no parameter '${key}'. Parameters: ${Object.keys(def.input).join(", ") || "none"}.\n`,
      );
      return 2;
    }
    args[key] = coerce(shape as z.ZodType, value);
  }
  try {
    const project = flagString(flags, "project");
    if (project !== undefined) await workspace.activate(project, { startServers: false });
    const result = await runTool(def, args, { workspace, log, toolNames: tools.map((t) => t.name) });
    process.stdout.write(`${result.content.map((c) => c.text).join("\n")}\n`);
    return result.isError ? 1 : 0;
  } finally {
    await workspace.shutdown();
  }
}

async function main(): Promise<number> {
  const { command, flags } = parseArgs(process.argv.slice(2));
  if (flags.has("version")) {
    process.stdout.write(`${version}\n`);
    return 0;
  }
  if (command === undefined || command === "help" || flags.has("help")) {
    process.stdout.write(usage);
    return command === undefined && !flags.has("help") ? 2 : 0;
  }
  if (command === "mcp") {
    await serveMcp(flags);
    return -1;
  }
  if (command === "doctor") {
    process.stdout.write(`${await doctorReport(flagString(flags, "project"))}\n`);
    return 0;
  }
  if (command === "tools") {
    for (const t of toolsFor(flags.has("read-only"))) process.stdout.write(`${t.name}\t${t.title}\n`);
    return 0;
  }
  return runOnce(command, flags);
}

main().then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (error: unknown) => {
    log.error("fatal", error);
    process.exit(1);
  },
);
