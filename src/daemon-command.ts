/**
 * The command line's side of the daemon: `scalpel daemon run|stop|status` and what `scalpel doctor`
 * says of it; whether `scalpel mcp` relays to it and the relay's start are in daemon/client.ts
 * (light enough for the relay's own bundle, src/relay-main.ts).
 */
import { UsageError } from "./cli-args.js";
import { buildId } from "./core/startup.js";
import { version } from "./core/version.js";
import { entry } from "./daemon/client.js";
import { connectDaemon } from "./daemon/connect.js";
import { environmentKey } from "./daemon/env-key.js";
import type { DaemonStatus } from "./daemon/hello.js";
import { type DaemonPaths, daemonsOfThisBuild } from "./daemon/paths.js";
import { runDaemon } from "./daemon.js";

export { openRelay, type RelayedSession, relayToDaemon } from "./daemon/client.js";

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
