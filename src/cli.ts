#!/usr/bin/env node
/**
 * argv → MCP server, doctor, or one tool run from a terminal. The only place that exits the process.
 */
import { randomBytes } from "node:crypto";
import type { z } from "zod";
import {
  type CommandSpec,
  optionList,
  optionString,
  type ParsedArgs,
  parseCommandLine,
  UsageError,
} from "./cli-args.js";
import {
  daemonChoice,
  mcpCommand,
  projectOption,
  readOnlyOption,
  relayedSession,
  trustOption,
} from "./cli-options.js";
import { isAppError } from "./core/errors.js";
import { log } from "./core/log.js";
import { version } from "./core/version.js";
import { daemonAskedError, openRelay, relayToDaemon, sayServedInProcess } from "./daemon/client.js";
import { daemonCommand, daemonStatusLines } from "./daemon-command.js";
import { doctorReport } from "./doctor.js";
import type { AttachEngine } from "./http.js";
import { killAllServersSync } from "./process/spawn.js";
import { createServer, serveStdio } from "./server.js";
import { allTools, toolsFor } from "./tools/index.js";
import type { ToolDef } from "./tools/kit/define.js";
import { unknownParameters } from "./tools/kit/input.js";
import { parseArguments, runTool } from "./tools/kit/run.js";
import { userDecision } from "./user-decision.js";
import { Workspace } from "./workspace/workspace.js";

const usage = `scalpel ${version} — type-precise code tools for coding agents (MCP)

Usage:
  scalpel mcp [--project PATH] [--read-only] [--trust] [--projects-in DIR …] [--http PORT] [--no-daemon]
                                MCP server on stdio (or Streamable HTTP with --http)
  scalpel daemon stop|status    the per-user daemon that sessions share (every one of this build)
  scalpel trust [PATH]          trust a project (default: the current directory): its declared language
                                servers, own compilers and build code may run (it says which); registers it
  scalpel untrust [PATH]        withdraw that trust
  scalpel register [PATH]       allow activate_project to open a project, without trusting it
  scalpel doctor [--project PATH]                 which language servers are installed; the project's trust
  scalpel <tool> --project PATH [--read-only] [--trust] [--param value …]   run one tool, print its result
  scalpel tools [--read-only]                     list the tools

Options of mcp:
  --project PATH      the project to serve (it may always be activated)
  --read-only         no tool writes files or memories
  --trust             trust the --project for this session only (until its .scalpel/project.yml changes)
  --projects-in DIR   activate_project may open projects inside DIR (repeatable); otherwise only
                      --project and registered projects (scalpel register / scalpel trust)
  --http PORT         serve Streamable HTTP at http://127.0.0.1:PORT/mcp instead of stdio; every request
                      needs "Authorization: Bearer <token>" (SCALPEL_HTTP_TOKEN, or one printed on stderr);
                      each MCP session gets its own project (and, with --no-daemon, its own servers)
  --host ADDRESS      with --http: listen on ADDRESS instead of 127.0.0.1
  --no-daemon         serve in this process, sharing nothing (SCALPEL_DAEMON=0). By default the session
                      (stdio or each --http one) is served by the per-user daemon, started if none runs,
                      which shares one set of language servers per project between sessions; when none
                      can be reached the session is served in-process, said on stderr
  --daemon            the daemon or an error, never in-process (SCALPEL_DAEMON=1)
Tool parameters are JSON when they parse as JSON (numbers, true/false, arrays), strings otherwise.
Unknown options are errors.
`;

const pathArg = { name: "PATH", max: 1 };

const commands: Readonly<Record<string, CommandSpec>> = {
  mcp: mcpCommand,
  daemon: { options: {}, positionals: { name: "run|stop|status", max: 1 } },
  doctor: { options: { project: projectOption } },
  tools: { options: { "read-only": readOnlyOption } },
  trust: { options: {}, positionals: pathArg },
  untrust: { options: {}, positionals: pathArg },
  register: { options: {}, positionals: pathArg },
  help: { options: {} },
};

/** A tool run from the terminal: the command's own options, then the tool's parameters. */
const toolRun: CommandSpec = {
  options: { project: projectOption, "read-only": readOnlyOption, trust: trustOption },
  openOptions: true,
};

function specFor(command: string): CommandSpec | undefined {
  if (command in commands) return commands[command];
  return allTools.some((t) => t.name === command) ? toolRun : undefined;
}

type Options = ParsedArgs["options"];

/** `stdin: true`: the client is our stdin (stdio mode); in HTTP mode stdin means nothing. */
function installExitHandlers(shutdown: () => Promise<void>, opts: { stdin: boolean }): void {
  // Whatever ends the process, no language server may outlive it.
  process.on("exit", () => killAllServersSync());
  let stopping = false;
  const stop = (code: number) => {
    if (stopping) return;
    stopping = true;
    const force = setTimeout(() => process.exit(code), 4000);
    force.unref();
    shutdown()
      .catch((e: unknown) => log.warn("shutdown failed", e))
      .finally(() => process.exit(code));
  };
  process.on("SIGINT", () => stop(130));
  process.on("SIGTERM", () => stop(143));
  process.on("SIGHUP", () => stop(129));
  if (opts.stdin) {
    process.stdin.on("end", () => stop(0));
    process.stdin.on("close", () => stop(0));
  }
}

function checkTrustFlag(options: Options): void {
  if (options.has("trust") && !options.has("project")) {
    throw new UsageError(
      "--trust trusts the --project of this session; give --project PATH too (or run `scalpel trust PATH` to trust a project for good).",
    );
  }
}

/**
 * A workspace with the --project activated (if any); a failure is told to the calls, not fatal.
 * `startServers: false` (HTTP sessions): servers start when a tool first needs one.
 */
async function startWorkspace(options: Options, startServers = true): Promise<Workspace> {
  const workspace = new Workspace(
    {
      readOnly: options.has("read-only"),
      cwd: process.cwd(),
      projectsIn: optionList(options, "projects-in"),
    },
    log,
  );
  const project = optionString(options, "project");
  if (project !== undefined)
    await workspace.activateAtStart(project, { trustForSession: options.has("trust"), startServers });
  return workspace;
}

async function serveMcp(options: Options): Promise<void> {
  checkTrustFlag(options);
  const http = optionString(options, "http");
  if (http !== undefined) return serveMcpHttp(options, http);
  if (options.has("host")) throw new UsageError("--host only applies with --http PORT.");
  const choice = daemonChoice({ daemon: options.has("daemon"), noDaemon: options.has("no-daemon") });
  if (choice !== "no") {
    if (await relayToDaemon(relayedSession(options))) process.exit(0);
    if (choice === "asked") throw daemonAskedError();
    // The session must work: served here, as with --no-daemon, with no sharing.
    sayServedInProcess("session");
  }
  const workspace = await startWorkspace(options);
  installExitHandlers(() => workspace.shutdown(), { stdin: true });
  const server = createServer({ workspace, log });
  await serveStdio(server, () => {
    void workspace.shutdown().finally(() => process.exit(0));
  });
  const name = workspace.project?.name;
  log.info(`scalpel ${version} ready on stdio${name ? ` for ${name}` : ""}`);
}

/** HTTP sessions open at once (default 8, SCALPEL_HTTP_MAX_SESSIONS): each may hold a server per language. */
function httpMaxSessions(): number {
  const n = Number(process.env.SCALPEL_HTTP_MAX_SESSIONS);
  return Number.isInteger(n) && n > 0 ? Math.min(n, 1000) : 8;
}

/** Sessions idle this long (default 30 min, SCALPEL_HTTP_IDLE_S) are closed with their language servers. */
function httpIdleMs(): number {
  const s = Number(process.env.SCALPEL_HTTP_IDLE_S);
  return Number.isFinite(s) && s > 0 ? Math.min(s, 7 * 24 * 3600) * 1000 : 30 * 60 * 1000;
}

/**
 * Each HTTP session's engine: the per-user daemon like a stdio session (a session it cannot reach
 * is served in-process, said on stderr, unless --daemon asked for it), or with --no-daemon a
 * workspace of its own here.
 */
function httpEngine(options: Options, http: typeof import("./http.js")): AttachEngine {
  const { relayEngine, workspaceEngine } = http;
  // A bare initialize starts nothing: the servers come with the first tool that needs them.
  const inProcess = workspaceEngine(() => startWorkspace(options, false), log);
  const choice = daemonChoice({ daemon: options.has("daemon"), noDaemon: options.has("no-daemon") });
  if (choice === "no") return inProcess;
  const fallback: AttachEngine = (transport) => {
    if (choice === "asked") return Promise.reject(daemonAskedError());
    sayServedInProcess("HTTP session");
    return inProcess(transport);
  };
  return relayEngine((input, output) => openRelay(relayedSession(options), input, output), fallback, log);
}

async function serveMcpHttp(options: Options, portText: string): Promise<void> {
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535) {
    throw new UsageError(`--http takes a port number (0-65535; 0 picks a free one), not '${portText}'.`);
  }
  const host = optionString(options, "host") ?? "127.0.0.1";
  const fromEnv = process.env.SCALPEL_HTTP_TOKEN;
  if (fromEnv !== undefined && fromEnv.length < 16) {
    throw new UsageError("SCALPEL_HTTP_TOKEN must be at least 16 characters long.");
  }
  const token = fromEnv ?? randomBytes(24).toString("base64url");
  // Loaded here, not at start-up: the SDK's HTTP transport brings node:http2 and, through
  // @hono/node-server's use of the global Response, Node's fetch implementation: ~25 ms of every
  // stdio session's start (CPU profile of a cold start on rxjs), for a mode few sessions use.
  const http = await import("./http.js");
  const handle = await http.serveHttp({
    port,
    host,
    token,
    idleMs: httpIdleMs(),
    maxSessions: httpMaxSessions(),
    log,
    attach: httpEngine(options, http),
  });
  installExitHandlers(() => handle.close(), { stdin: false });
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${handle.port}/mcp`;
  log.info(`scalpel ${version} listening on ${url}`);
  // The token goes to stderr (the user's terminal), never to a file; a token from the environment
  // is not repeated.
  if (fromEnv === undefined)
    process.stderr.write(`scalpel: send "Authorization: Bearer ${token}" to ${url}\n`);
  if (host !== "127.0.0.1" && host !== "localhost" && host !== "::1") {
    log.warn(
      `listening on ${host}, not only this machine: anyone who can reach it and has the token can use every tool`,
    );
  }
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

/**
 * Why the terminal refuses these arguments, or undefined: the strict check every call gets
 * (tools/kit/input.ts), with unknown parameters spelt as options and the command's own options
 * among the suggestions (`--projekt` means `--project`).
 */
function refuseArguments(def: ToolDef, args: Record<string, unknown>): string | undefined {
  const unknown = Object.keys(args).filter((key) => !(key in def.input));
  if (unknown.length > 0) {
    const valid = [...Object.keys(def.input), ...Object.keys(toolRun.options)];
    const what = unknownParameters(def.name, unknown, valid, (n) => `--${n}`);
    return `Invalid arguments for ${def.name}: ${what}. Run it again without ${unknown.length === 1 ? "it" : "them"}.`;
  }
  try {
    parseArguments(def, args);
    return undefined;
  } catch (e) {
    if (isAppError(e)) return e.message;
    throw e;
  }
}

async function runOnce(name: string, options: Options): Promise<number> {
  checkTrustFlag(options);
  const workspace = new Workspace({ readOnly: options.has("read-only"), cwd: process.cwd() }, log);
  const tools = toolsFor(workspace.options.readOnly);
  const def = tools.find((t) => t.name === name);
  if (!def) {
    process.stderr.write(`'${name}' writes files and is not available with --read-only.\n`);
    return 2;
  }
  const args: Record<string, unknown> = {};
  for (const [key, value] of options) {
    if (key in toolRun.options) continue;
    if (Array.isArray(value)) continue;
    const shape = def.input[key];
    args[key] = shape ? coerce(shape as z.ZodType, value) : value;
  }
  // Refused before the project is opened: a refused call does nothing at all.
  const refusal = refuseArguments(def, args);
  if (refusal !== undefined) {
    process.stderr.write(`Error (invalid_argument): ${refusal}\n`);
    return 2;
  }
  process.on("exit", () => killAllServersSync());
  try {
    const project = optionString(options, "project");
    if (project !== undefined)
      await workspace.activate(project, {
        startServers: false,
        byUser: true,
        trustForSession: options.has("trust"),
      });
    const result = await runTool(def, args, { workspace, log, toolNames: tools.map((t) => t.name) });
    process.stdout.write(`${result.content.map((c) => c.text).join("\n")}\n`);
    return result.isError ? 1 : 0;
  } finally {
    await workspace.shutdown();
  }
}

async function main(): Promise<number> {
  let parsed: ParsedArgs;
  try {
    parsed = parseCommandLine(process.argv.slice(2), specFor);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`${e.message}\n\n${usage}`);
      return 2;
    }
    throw e;
  }
  const { command, options, positionals } = parsed;
  if (options.has("version")) {
    process.stdout.write(`${version}\n`);
    return 0;
  }
  if (command === undefined || command === "help" || options.has("help")) {
    process.stdout.write(usage);
    return command === undefined && !options.has("help") ? 2 : 0;
  }
  try {
    if (command === "mcp") {
      await serveMcp(options);
      return -1;
    }
    if (command === "doctor") {
      const daemon = await daemonStatusLines();
      process.stdout.write(`${await doctorReport(optionString(options, "project"))}\n${daemon.join("\n")}\n`);
      return 0;
    }
    if (command === "daemon") return await daemonCommand(positionals[0]);
    if (command === "tools") {
      for (const t of toolsFor(options.has("read-only"))) process.stdout.write(`${t.name}\t${t.title}\n`);
      return 0;
    }
    if (command === "trust" || command === "untrust" || command === "register") {
      return await userDecision(command, positionals[0]);
    }
    return await runOnce(command, options);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`${e.message}\n\n${usage}`);
      return 2;
    }
    if (isAppError(e)) {
      process.stderr.write(`Error (${e.code}): ${e.message}\n`);
      return 1;
    }
    throw e;
  }
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
