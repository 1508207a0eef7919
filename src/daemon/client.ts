/**
 * A session's side of the daemon, kept light (no tool, no server code): with src/cli-options.ts,
 * all that the relay's own bundle (src/relay-main.ts) loads. The relay's start, and what is said
 * when no daemon can be reached.
 */
import { AppError } from "../core/errors.js";
import { log } from "../core/log.js";
import { buildId } from "../core/startup.js";
import { version } from "../core/version.js";
import { environmentKey } from "./env-key.js";
import type { SessionHello } from "./hello.js";
import { Relay } from "./relay.js";

/** The script that starts scalpel (dist/src/cli.js), so the daemon runs the same build. */
export function entry(): string {
  const script = process.argv[1];
  if (script === undefined) throw new Error("cannot tell which script started scalpel");
  return script;
}

export interface RelayedSession {
  project?: string;
  readOnly: boolean;
  trust: boolean;
  projectsIn: string[];
}

function sessionHello(session: RelayedSession): SessionHello {
  return {
    scalpelDaemon: 1 as const,
    version,
    build: buildId(),
    kind: "session" as const,
    cwd: process.cwd(),
    readOnly: session.readOnly,
    trust: session.trust,
    projectsIn: session.projectsIn,
    ...(session.project !== undefined ? { project: session.project } : {}),
  };
}

/**
 * A relay of `input`/`output` to the daemon of this build and environment, connected (a daemon
 * started if none runs), or null when none could be reached (the reason is on stderr).
 */
export async function openRelay(
  session: RelayedSession,
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
): Promise<Relay | null> {
  const relay = new Relay({ hello: sessionHello(session), entry: entry(), log, input, output });
  return (await relay.open()) ? relay : null;
}

/**
 * Relays stdio to the daemon until the host closes stdin; false, having read nothing from stdin,
 * when no daemon could be reached.
 */
export async function relayToDaemon(session: RelayedSession): Promise<boolean> {
  const relay = await openRelay(session, process.stdin, process.stdout);
  if (!relay) return false;
  log.info(
    `scalpel ${version} relaying stdio to the per-user daemon (build ${buildId()}, environment ${environmentKey()})`,
  );
  await relay.run();
  return true;
}

/** No daemon could be reached and --daemon (or SCALPEL_DAEMON=1) asked for one. */
export function daemonAskedError(): AppError {
  return new AppError(
    "daemon_unavailable",
    "--daemon (or SCALPEL_DAEMON=1) was given and no daemon could be reached (scalpel's stderr says why). Run with --no-daemon to serve in this process.",
  );
}

/** What a default session says when it is served in-process for want of a daemon. */
export function sayServedInProcess(what: string): void {
  log.warn(`no per-user daemon could be reached (why is above): serving this ${what} in-process`);
}
