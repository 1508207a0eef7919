/**
 * The relay's own bundle (dist/src/relay.cjs, loaded by src/launch.ts for `scalpel mcp`): a
 * session served by the daemon needs only the relay, not scalpel's 2.2 MB of tools and servers.
 * Measured on this machine: `scalpel --version` through the whole bundle 0.19–0.29 s and 81 MB
 * RSS, a bare node 0.06 s and 42 MB; every host session keeps its relay for its whole life.
 *
 * Anything else is handed back to the whole CLI ("full"): another command, --help, --version,
 * --http, --no-daemon, a command line it would refuse (the CLI says why, with the usage). A
 * default session no daemon could be reached for is handed back as "in-process", having said so.
 */
import { parseCommandLine, UsageError } from "./cli-args.js";
import { daemonChoice, mcpCommand, relayedSession } from "./cli-options.js";
import { daemonAskedError, relayToDaemon, sayServedInProcess } from "./daemon/client.js";

export type RelayOutcome = "served" | "in-process" | "full" | "failed";

export async function relayMain(argv: readonly string[]): Promise<RelayOutcome> {
  let parsed: ReturnType<typeof parseCommandLine>;
  try {
    parsed = parseCommandLine(argv, (command) => (command === "mcp" ? mcpCommand : undefined));
  } catch (e) {
    if (e instanceof UsageError) return "full";
    throw e;
  }
  const { command, options } = parsed;
  if (command !== "mcp" || options.has("help") || options.has("version") || options.has("http"))
    return "full";
  if (options.has("host") || (options.has("trust") && !options.has("project"))) return "full";
  let choice: ReturnType<typeof daemonChoice>;
  try {
    choice = daemonChoice({ daemon: options.has("daemon"), noDaemon: options.has("no-daemon") });
  } catch {
    return "full";
  }
  if (choice === "no") return "full";
  if (await relayToDaemon(relayedSession(options))) return "served";
  if (choice === "asked") {
    const error = daemonAskedError();
    process.stderr.write(`Error (${error.code}): ${error.message}\n`);
    return "failed";
  }
  sayServedInProcess("session");
  return "in-process";
}
