/**
 * Which daemon a client may join, besides its build: the daemon's environment is the one every
 * language server it starts inherits (process/spawn.ts extends it), and the one its own settings
 * are read from. A client whose environment differs in what matters must not be served by a daemon
 * started with another one: a host whose PATH finds another gopls, or a shell with
 * SCALPEL_TOOL_TIMEOUT=5, would silently get the first client's. So the settings that matter are
 * hashed into the socket's name (daemon/paths.ts): a client of another environment starts a
 * daemon of its own beside it, and says so on stderr.
 *
 * What does not matter is left out on purpose, or every terminal (TERM, PWD, SHLVL, …) and every
 * host that marks its sessions with a variable would get a daemon of its own and nothing would be
 * shared: only scalpel's own settings that the daemon reads, and variables of a toolchain's shape.
 */
import { createHash } from "node:crypto";
import { allToolchainVariables } from "../../language-servers/environment.js";

/** scalpel's variables that only the client reads (or that name the daemon's folder already). */
const clientOnly = new Set([
  "SCALPEL_HOME",
  "SCALPEL_DAEMON",
  "SCALPEL_DAEMON_BUILD_TAG",
  "SCALPEL_HTTP_TOKEN",
  "SCALPEL_HTTP_MAX_SESSIONS",
  "SCALPEL_HTTP_IDLE_S",
  "SCALPEL_CODE_CACHE_OUT",
]);

/**
 * The shapes of the variables toolchains read to find their compilers, packages, settings and
 * virtual environments: search paths (`PATH`, `…PATH`), homes and roots of an installation, flags,
 * toolchain pins, SDKs, options, environments, prefixes, proxies. By shape, not by name: which
 * variables a language's tools read is its adapter's knowledge (language-servers/), not this file's.
 * Variables of no such shape that a language's tools read (GOOS, GOWORK, …) are named by the
 * adapters' side (language-servers/environment.ts).
 */
const toolchain =
  /^(?:[A-Z0-9_]*PATH|[A-Z0-9_]*HOME|[A-Z0-9_]*ROOT|[A-Z0-9_]*FLAGS|[A-Z0-9_]*TOOLCHAIN|[A-Z0-9_]*_SDK|[A-Z0-9_]*_OPTIONS|[A-Z0-9_]*_ENV|[A-Z0-9_]*PREFIX|[A-Z0-9_]*_PROXY)$/i;

/** The variables of `env` that a daemon must share with its clients, sorted by name. */
export function mattersToDaemon(env: NodeJS.ProcessEnv): Array<[string, string]> {
  return Object.entries(env)
    .filter(
      (entry): entry is [string, string] =>
        entry[1] !== undefined &&
        ((entry[0].startsWith("SCALPEL_") && !clientOnly.has(entry[0])) ||
          toolchain.test(entry[0]) ||
          allToolchainVariables.has(entry[0])),
    )
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Ten hex digits naming that part of the environment (in the socket's name). */
export function environmentKey(env: NodeJS.ProcessEnv = process.env): string {
  return createHash("sha256")
    .update(JSON.stringify(mattersToDaemon(env)))
    .digest("hex")
    .slice(0, 10);
}
