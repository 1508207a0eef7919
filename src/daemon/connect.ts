/**
 * A client's connection to the per-user daemon of its own build: dial the socket, and when nothing
 * answers, start the daemon detached and dial again. Starting is done under a lock file created
 * exclusively, so two clients starting at once start one daemon; a lock left by a client that died
 * while starting is taken over once it is older than the start bound.
 */
import { closeSync, existsSync, openSync, statSync, unlinkSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { AppError } from "../core/errors.js";
import { startDetached } from "../process/detached.js";
import { type Hello, type HelloAnswer, readFirstLine, writeLine } from "./hello.js";
import { type DaemonPaths, daemonPaths, secureDaemonDir, socketIsPrivate } from "./paths.js";

/** How long a daemon may take to listen after it was started. */
const startBoundMs = 15_000;
/** How long a session's hello may wait for its answer (its project activated first). */
const answerBoundMs = 120_000;

function dial(paths: DaemonPaths): Promise<Socket | null> {
  if (!socketIsPrivate(paths)) return Promise.resolve(null);
  return new Promise((resolve) => {
    const socket = connect(paths.socket);
    socket.once("connect", () => {
      socket.removeAllListeners("error");
      resolve(socket);
    });
    // ECONNREFUSED (a socket left by a daemon that was killed), ENOENT: nobody answers.
    socket.once("error", () => resolve(null));
  });
}

function takeLock(paths: DaemonPaths): boolean {
  try {
    closeSync(openSync(paths.lock, "wx", 0o600));
    return true;
  } catch {
    try {
      if (Date.now() - statSync(paths.lock).mtimeMs > startBoundMs) unlinkSync(paths.lock);
    } catch {
      // Released meanwhile.
    }
    return false;
  }
}

async function dialOrStart(paths: DaemonPaths, entry: string): Promise<Socket> {
  const deadline = Date.now() + startBoundMs * 2;
  let started = false;
  while (Date.now() < deadline) {
    const socket = await dial(paths);
    if (socket) return socket;
    if (!started && takeLock(paths)) {
      try {
        // Another client may have started one between our dial and the lock.
        const again = await dial(paths);
        if (again) return again;
        const daemon = startDetached(
          process.execPath,
          [...process.execArgv, entry, "daemon", "run"],
          paths.log,
          paths.dir,
        );
        started = true;
        const until = Date.now() + startBoundMs;
        while (Date.now() < until) {
          await sleep(50);
          const ended = daemon.exited();
          const s = await dial(paths);
          if (s) return s;
          // It ended without listening (it exits at once when one of its build already listens,
          // which the dial above found): no use waiting out the bound.
          if (ended)
            throw new AppError(
              "daemon_unavailable",
              "The scalpel daemon exited as it started; see $SCALPEL_HOME/daemon/*.log, or run with --no-daemon.",
            );
        }
      } finally {
        try {
          unlinkSync(paths.lock);
        } catch {
          // Taken over as stale.
        }
      }
    }
    await sleep(100);
  }
  throw new AppError(
    "daemon_unavailable",
    "The scalpel daemon did not start in time; see $SCALPEL_HOME/daemon/*.log, or run with --no-daemon.",
  );
}

/**
 * A connection that passed the hello, with the daemon's answer; `start: false` (status, stop)
 * never starts a daemon and gives null when none runs. `entry`: the script that starts scalpel.
 * `paths`: another daemon of this build than the one of this environment (status, stop).
 */
export async function connectDaemon(
  hello: Hello,
  options: { start: boolean; entry: string; paths?: DaemonPaths },
): Promise<{ socket: Socket; answer: HelloAnswer & { ok: true } } | null> {
  const paths = options.paths ?? daemonPaths();
  // Asking (status, stop) creates nothing.
  if (!options.start && !existsSync(paths.dir)) return null;
  secureDaemonDir(paths);
  // A daemon being killed may still accept a connection it then drops (its listening socket closes
  // after the connections, seen once in ten runs of the SIGKILL test): dialled again, the next
  // attempt finds the socket refused and starts a new daemon.
  for (let attempt = 0; ; attempt++) {
    const socket = options.start ? await dialOrStart(paths, options.entry) : await dial(paths);
    if (socket === null) return null;
    writeLine(socket, hello);
    let answer: HelloAnswer;
    try {
      // A session's answer comes after its --project is activated, as long as a start in-process.
      answer = (await readFirstLine(
        socket,
        hello.kind === "session" ? answerBoundMs : startBoundMs,
      )) as HelloAnswer;
    } catch (e) {
      socket.destroy();
      const dropped = e instanceof Error && e.message.startsWith("closed");
      if (options.start && dropped && attempt < 2) {
        await sleep(100);
        continue;
      }
      throw new AppError("daemon_unavailable", "The scalpel daemon closed the connection before answering.");
    }
    if (!answer.ok) {
      socket.destroy();
      throw new AppError("daemon_refused", answer.refused);
    }
    return { socket, answer };
  }
}
