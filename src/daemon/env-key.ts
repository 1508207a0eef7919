/**
 * Which daemon a client may join, besides its build: the daemon's environment is the one every
 * language server it starts inherits (process/spawn.ts extends it), and the one its own settings
 * are read from. A client whose environment differs in what matters must not be served by a daemon
 * started with another one: a host whose PATH finds another gopls, or a shell with
 * SCALPEL_TOOL_TIMEOUT=5, would silently get the first client's. So the settings that matter are
 * hashed into the socket's name (daemon/paths.ts): a client of another environment starts a
 * daemon of its own beside it, and says so on stderr.
 *
 * What does not matter is left out on purpose, or every terminal (TERM, PWD, SHLVL, …) would get a
 * daemon of its own and nothing would be shared: only PATH, scalpel's own settings that the daemon
 * reads, and the variables the supported toolchains read to find their compilers, packages and
 * virtual environments.
 */
import { createHash } from "node:crypto";

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

/** Variables the language servers' toolchains read (Go, Rust, Python, Node, Dart, Java). */
const toolchain =
  /^(PATH|GO[A-Z0-9_]*|CGO_[A-Z0-9_]+|CARGO[A-Z0-9_]*|RUST[A-Z0-9_]*|VIRTUAL_ENV|CONDA_PREFIX|PYTHON[A-Z0-9_]*|NODE_OPTIONS|NODE_PATH|TSS_[A-Z0-9_]+|DART_SDK|FLUTTER_ROOT|JAVA_HOME)$/;

/** The variables of `env` that a daemon must share with its clients, sorted by name. */
export function mattersToDaemon(env: NodeJS.ProcessEnv): Array<[string, string]> {
  return Object.entries(env)
    .filter(
      (entry): entry is [string, string] =>
        entry[1] !== undefined &&
        ((entry[0].startsWith("SCALPEL_") && !clientOnly.has(entry[0])) || toolchain.test(entry[0])),
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
