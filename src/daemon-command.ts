/**
 * The command line's side of the daemon: whether `scalpel mcp` relays to it (the default; `--no-daemon`
 * or SCALPEL_DAEMON=0 keep the in-process mode), the relay itself, and `scalpel daemon run|stop|status`.
 */
import { UsageError } from "./cli-args.js";
import { log } from "./core/log.js";
import { buildId } from "./core/startup.js";
import { version } from "./core/version.js";
import { connectDaemon } from "./daemon/connect.js";
import { environmentKey } from "./daemon/env-key.js";
import type { DaemonStatus } from "./daemon/hello.js";
import { type DaemonPaths, daemonsOfThisBuild } from "./daemon/paths.js";
import { Relay } from "./daemon/relay.js";
import { runDaemon } from "./daemon.js";

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

/** The script that starts scalpel (dist/src/cli.js), so the daemon runs the same build. */
function entry(): string {
  const script = process.argv[1];
  if (script === undefined) throw new UsageError("cannot tell which script started scalpel");
  return script;
}

export interface RelayedSession {
  project?: string;
  readOnly: boolean;
  trust: boolean;
  projectsIn: string[];
}

function sessionHello(session: RelayedSession) {
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

/** Each running daemon of this build (whatever its environment) answers `kind`. */
async function askAll(kind: "status" | "stop"): Promise<Array<DaemonStatus | string>> {
  const answers = await Promise.all(
    daemonsOfThisBuild().map((paths: DaemonPaths) =>
      connectDaemon(
        { scalpelDaemon: 1, version, build: buildId(), kind },
        { start: false, entry: entry(), paths },
      ).then(
        (connected) => {
          connected?.socket.destroy();
          return connected?.answer.status ?? null;
        },
        (e: unknown) => (e instanceof Error ? e.message : String(e)),
      ),
    ),
  );
  return answers.filter((a) => a !== null);
}

function statusLines(status: DaemonStatus): string[] {
  const mb = Math.round(status.rssBytes / 1024 / 1024);
  const mine = status.environment === environmentKey() ? "this environment's" : "another environment's";
  return [
    `daemon: pid ${status.pid}, scalpel ${status.version} (${status.build}), environment ${status.environment} (${mine}), ${status.sessions} session${status.sessions === 1 ? "" : "s"}, ${mb} MB (servers ${Math.round(status.serversRssBytes / 1024 / 1024)} MB)`,
    ...status.projects.map(
      (p) =>
        `  project ${p.name}: ${p.sessions} session${p.sessions === 1 ? "" : "s"}, servers: ${p.servers.join(", ") || "none"}`,
    ),
  ];
}

/** What `scalpel doctor` says of the daemons of this build. */
export async function daemonStatusLines(): Promise<string[]> {
  const all = await askAll("status");
  if (all.length === 0)
    return [
      "daemon: none running for this build (the next `scalpel mcp` starts one; --no-daemon serves in-process)",
    ];
  return all.flatMap((status) => (typeof status === "string" ? [`daemon: ${status}`] : statusLines(status)));
}

/** `scalpel daemon run|stop|status`; the exit code, or -1 while the daemon runs on. */
export async function daemonCommand(sub: string | undefined): Promise<number> {
  if (sub === "run") {
    await runDaemon();
    return 0;
  }
  if (sub === "stop") {
    const all = await askAll("stop");
    if (all.length === 0) process.stdout.write("no daemon of this build runs\n");
    for (const status of all)
      process.stdout.write(
        typeof status === "string" ? `${status}\n` : `stopped the daemon (pid ${status.pid})\n`,
      );
    return 0;
  }
  if (sub === "status") {
    process.stdout.write(`${(await daemonStatusLines()).join("\n")}\n`);
    return 0;
  }
  throw new UsageError("scalpel daemon takes run, stop or status.");
}
