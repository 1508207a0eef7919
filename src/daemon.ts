/**
 * `scalpel daemon run` (started detached by a client: src/daemon/connect.ts): the per-user daemon.
 * It listens on its Unix socket (src/daemon/paths.ts); each connection is one MCP session with its
 * own McpServer and Workspace (active project, --read-only, --trust, the client's capabilities,
 * progress tokens, budgets), while the projects behind them are shared by every session on the same
 * root (workspace/shared-projects.ts): one set of language servers, index, watcher, journal, locks.
 * A connection that closes (the client's relay ended or died) lets go of its share at once.
 *
 * Bounds: a project nobody uses keeps its servers for SCALPEL_KEEP_WARM seconds (default 1800);
 * the daemon exits after SCALPEL_DAEMON_IDLE seconds (default 3600) with no session.
 */
import { chmodSync, unlinkSync } from "node:fs";
import { connect, createServer as createNetServer, type Server, type Socket } from "node:net";
import { log } from "./core/log.js";
import { buildId } from "./core/startup.js";
import { version } from "./core/version.js";
import { environmentKey } from "./daemon/env-key.js";
import {
  type DaemonStatus,
  type Hello,
  readFirstLine,
  type SessionHello,
  writeLine,
} from "./daemon/hello.js";
import { daemonPaths, secureDaemonDir } from "./daemon/paths.js";
import { descendantsRssBytes } from "./daemon/tree-memory.js";
import { killAllServersSync } from "./process/spawn.js";
import { createServer, serveStream } from "./server.js";
import { SharedProjects } from "./workspace/shared-projects.js";
import { Workspace } from "./workspace/workspace.js";

function seconds(name: string, fallback: number): number {
  const s = Number(process.env[name]);
  return (Number.isFinite(s) && s > 0 ? Math.min(s, 7 * 24 * 3600) : fallback) * 1000;
}

function answers(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect(socketPath);
    probe.once("connect", () => {
      probe.destroy();
      resolve(true);
    });
    probe.once("error", () => resolve(false));
  });
}

function isSessionHello(hello: Hello): hello is SessionHello {
  return hello.kind === "session";
}

/** Runs the daemon until it is idle past its bound or told to stop; resolves when it has stopped. */
export async function runDaemon(): Promise<void> {
  const paths = daemonPaths();
  secureDaemonDir(paths);
  const projects = new SharedProjects(seconds("SCALPEL_KEEP_WARM", 1800), log);
  const idleMs = seconds("SCALPEL_DAEMON_IDLE", 3600);
  const sessions = new Set<Socket>();
  let idleTimer: NodeJS.Timeout | undefined;
  let stopping: Promise<void> | undefined;
  let stopped!: () => void;
  const done = new Promise<void>((resolve) => {
    stopped = resolve;
  });

  const status = (): DaemonStatus => ({
    pid: process.pid,
    version,
    build: buildId(),
    environment: environmentKey(),
    sessions: sessions.size,
    rssBytes: process.memoryUsage.rss(),
    serversRssBytes: descendantsRssBytes(process.pid),
    projects: projects.info(),
  });

  const armIdle = () => {
    clearTimeout(idleTimer);
    if (sessions.size > 0) return;
    idleTimer = setTimeout(() => void stop("idle"), idleMs);
  };

  const stop = (why: string): Promise<void> => {
    stopping ??= (async () => {
      log.info(`daemon stopping (${why})`);
      clearTimeout(idleTimer);
      server.close();
      for (const socket of sessions) socket.destroy();
      await projects.closeAll();
      try {
        unlinkSync(paths.socket);
      } catch {
        // Already gone (or replaced by a newer daemon's: unlink only what is ours is not knowable).
      }
      stopped();
    })();
    return stopping;
  };

  const openSession = async (socket: Socket, hello: SessionHello): Promise<void> => {
    const workspace = new Workspace(
      { readOnly: hello.readOnly, cwd: hello.cwd, projectsIn: hello.projectsIn, projects },
      log,
    );
    sessions.add(socket);
    armIdle();
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      sessions.delete(socket);
      socket.destroy();
      void workspace.shutdown().finally(armIdle);
    };
    socket.once("close", end);
    if (hello.project !== undefined)
      await workspace.activateAtStart(hello.project, { trustForSession: hello.trust });
    if (hello.activated !== undefined) {
      // As the tool call that activated it did: the same checks, so nothing more is allowed.
      await workspace.activate(hello.activated).catch(() => undefined);
    }
    // The client left while its project was being activated: the share taken meanwhile goes too.
    if (ended) {
      await workspace.shutdown();
      return;
    }
    writeLine(socket, { ok: true, pid: process.pid });
    const session = await serveStream(createServer({ workspace, log }), socket, socket, end);
    // readFirstLine left it paused, and a new "data" listener does not undo an explicit pause.
    socket.resume();
    socket.once("close", () => void session.close());
  };

  const onConnection = async (socket: Socket): Promise<void> => {
    socket.on("error", (e) => log.debug(`session connection: ${e.message}`));
    let hello: Hello;
    try {
      hello = (await readFirstLine(socket, 10_000)) as Hello;
    } catch {
      socket.destroy();
      return;
    }
    if (hello?.scalpelDaemon !== 1 || hello.version !== version || hello.build !== buildId()) {
      writeLine(socket, {
        ok: false,
        refused: `This daemon is scalpel ${version} (${buildId()}); start one of your own build.`,
      });
      socket.end();
      return;
    }
    if (hello.kind === "status" || hello.kind === "stop") {
      writeLine(socket, { ok: true, pid: process.pid, status: status() });
      socket.end();
      if (hello.kind === "stop") await stop("scalpel daemon stop");
      return;
    }
    if (isSessionHello(hello) && !stopping) await openSession(socket, hello);
    else socket.destroy();
  };

  // Every file the daemon makes is the user's alone.
  process.umask(0o077);
  // A daemon that answers keeps its socket: unlinking it would orphan that daemon's sessions' peers.
  if (await answers(paths.socket)) {
    log.info("a daemon of this build already listens; this one exits");
    return;
  }
  try {
    unlinkSync(paths.socket);
  } catch {
    // None left by a killed daemon.
  }
  const server: Server = createNetServer((socket) => {
    onConnection(socket).catch((e: unknown) => {
      log.error("daemon session failed", e);
      socket.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(paths.socket, () => resolve());
  });
  // bind() made it 0700 under the umask; the folder (0700) already keeps others out meanwhile.
  chmodSync(paths.socket, 0o600);
  process.on("exit", () => killAllServersSync());
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(signal, () => void stop(signal));
  log.info(`scalpel ${version} daemon (${buildId()}) listening, pid ${process.pid}`);
  armIdle();
  return done;
}
