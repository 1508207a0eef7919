/**
 * The command line's side of the daemon: whether `scalpel mcp` relays to it (opt-in for now:
 * `--daemon` or SCALPEL_DAEMON=1; `--no-daemon` / SCALPEL_DAEMON=0 keep the in-process mode),
 * the relay itself, and `scalpel daemon run|stop|status`.
 */
import { UsageError } from "./cli-args.js";
import { log } from "./core/log.js";
import { buildId } from "./core/startup.js";
import { version } from "./core/version.js";
import { connectDaemon } from "./daemon/connect.js";
import type { DaemonStatus } from "./daemon/hello.js";
import { Relay } from "./daemon/relay.js";
import { runDaemon } from "./daemon.js";

/** `--daemon` / `--no-daemon` win over SCALPEL_DAEMON; the default is in-process. */
export function daemonWanted(flags: { daemon: boolean; noDaemon: boolean }): boolean {
  if (flags.daemon && flags.noDaemon) throw new UsageError("Give --daemon or --no-daemon, not both.");
  if (flags.daemon) return true;
  if (flags.noDaemon) return false;
  const env = process.env.SCALPEL_DAEMON;
  if (env === undefined || env === "" || env === "0") return false;
  if (env === "1") return true;
  throw new UsageError(`SCALPEL_DAEMON is 1 (relay to the per-user daemon) or 0 (in-process), not '${env}'.`);
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

/** Relays stdio to the daemon until the host closes stdin. */
export async function relayToDaemon(session: RelayedSession): Promise<void> {
  const relay = new Relay({
    hello: {
      scalpelDaemon: 1,
      version,
      build: buildId(),
      kind: "session",
      cwd: process.cwd(),
      readOnly: session.readOnly,
      trust: session.trust,
      projectsIn: session.projectsIn,
      ...(session.project !== undefined ? { project: session.project } : {}),
    },
    entry: entry(),
    log,
    input: process.stdin,
    output: process.stdout,
  });
  log.info(`scalpel ${version} relaying stdio to the per-user daemon`);
  await relay.run();
}

async function ask(kind: "status" | "stop"): Promise<DaemonStatus | null> {
  const connected = await connectDaemon(
    { scalpelDaemon: 1, version, build: buildId(), kind },
    { start: false, entry: entry() },
  );
  if (!connected) return null;
  connected.socket.destroy();
  return connected.answer.status ?? null;
}

/** What `scalpel doctor` says of the daemon of this build, or undefined when none runs. */
export async function daemonStatusLines(): Promise<string[]> {
  const status = await ask("status").catch((e: unknown) => {
    return e instanceof Error ? e.message : String(e);
  });
  if (status === null) return ["daemon: none running for this build (scalpel mcp --daemon starts one)"];
  if (typeof status === "string") return [`daemon: ${status}`];
  const mb = Math.round(status.rssBytes / 1024 / 1024);
  return [
    `daemon: pid ${status.pid}, scalpel ${status.version} (${status.build}), ${status.sessions} session${status.sessions === 1 ? "" : "s"}, ${mb} MB`,
    ...status.projects.map(
      (p) =>
        `  project ${p.name}: ${p.sessions} session${p.sessions === 1 ? "" : "s"}, servers: ${p.servers.join(", ") || "none"}`,
    ),
  ];
}

/** `scalpel daemon run|stop|status`; the exit code, or -1 while the daemon runs on. */
export async function daemonCommand(sub: string | undefined): Promise<number> {
  if (sub === "run") {
    await runDaemon();
    return 0;
  }
  if (sub === "stop") {
    const status = await ask("stop");
    process.stdout.write(
      status ? `stopped the daemon (pid ${status.pid})\n` : "no daemon of this build runs\n",
    );
    return 0;
  }
  if (sub === "status") {
    process.stdout.write(`${(await daemonStatusLines()).join("\n")}\n`);
    return 0;
  }
  throw new UsageError("scalpel daemon takes run, stop or status.");
}
