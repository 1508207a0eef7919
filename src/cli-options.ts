/**
 * Options the command line shares between commands, and `scalpel mcp`'s own: read by the full CLI
 * (cli.ts) and by the relay's bundle (relay-main.ts), which must refuse and accept the same words
 * and choose between the daemon and in-process alike.
 */
import {
  type CommandSpec,
  type OptionSpec,
  optionList,
  optionString,
  type ParsedArgs,
  UsageError,
} from "./cli-args.js";
import type { RelayedSession } from "./daemon/client.js";

export const projectOption: OptionSpec = { value: "PATH", help: "the project" };
export const readOnlyOption: OptionSpec = { help: "no tool writes files or memories" };
export const trustOption: OptionSpec = { help: "trust the --project for this session" };

export const mcpCommand: CommandSpec = {
  options: {
    project: projectOption,
    "read-only": readOnlyOption,
    trust: trustOption,
    "projects-in": { value: "DIR", repeat: true, help: "projects inside DIR may be activated" },
    http: { value: "PORT", help: "serve MCP over Streamable HTTP on PORT instead of stdio" },
    host: { value: "ADDRESS", help: "with --http: the address to listen on (default 127.0.0.1)" },
    daemon: { help: "the per-user daemon or an error (the default falls back to in-process)" },
    "no-daemon": { help: "serve in this process, sharing nothing" },
  },
};

/** How `scalpel mcp` serves: through the daemon, asked for or by default, or in this process. */
export type DaemonChoice = "asked" | "default" | "no";

/**
 * `--daemon` / `--no-daemon` win over SCALPEL_DAEMON; the default is the daemon, except on Windows
 * (no Unix socket folder there: in-process). "asked" (`--daemon`, SCALPEL_DAEMON=1) fails when no
 * daemon can be reached; "default" falls back to serving in-process, saying so on stderr.
 */
export function daemonChoice(flags: { daemon: boolean; noDaemon: boolean }): DaemonChoice {
  if (flags.daemon && flags.noDaemon) throw new UsageError("Give --daemon or --no-daemon, not both.");
  if (flags.daemon) return "asked";
  if (flags.noDaemon) return "no";
  const env = process.env.SCALPEL_DAEMON;
  if (env === "0") return "no";
  if (env === "1") return "asked";
  if (env !== undefined && env !== "")
    throw new UsageError(
      `SCALPEL_DAEMON is 1 (relay to the per-user daemon) or 0 (in-process), not '${env}'.`,
    );
  return process.platform === "win32" ? "no" : "default";
}

/** The options of `scalpel mcp` that a daemon session takes. */
export function relayedSession(options: ParsedArgs["options"]): RelayedSession {
  const project = optionString(options, "project");
  return {
    ...(project !== undefined ? { project } : {}),
    readOnly: options.has("read-only"),
    trust: options.has("trust"),
    projectsIn: optionList(options, "projects-in"),
  };
}
