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
        startDetached(process.execPath, [...process.execArgv, entry, "daemon", "run"], paths.log, paths.dir);
        started = true;
        const until = Date.now() + startBoundMs;
        while (Date.now() < until) {
          await sleep(50);
          const s = await dial(paths);
          if (s) return s;
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
    "The scalpel daemon did not start in time; see $SCALPEL_HOME/daemon/*.log, or run without --daemon.",
  );
}

/**
 * A connection that passed the hello, with the daemon's answer; `start: false` (status, stop)
 * never starts a daemon and gives null when none runs. `entry`: the script that starts scalpel.
 */
export async function connectDaemon(
  hello: Hello,
  options: { start: boolean; entry: string },
): Promise<{ socket: Socket; answer: HelloAnswer & { ok: true } } | null> {
  const paths = daemonPaths();
  // Asking (status, stop) creates nothing.
  if (!options.start && !existsSync(paths.dir)) return null;
  secureDaemonDir(paths);
  const socket = options.start ? await dialOrStart(paths, options.entry) : await dial(paths);
  if (socket === null) return null;
  writeLine(socket, hello);
  let answer: HelloAnswer;
  try {
    answer = (await readFirstLine(socket, startBoundMs)) as HelloAnswer;
  } catch {
    socket.destroy();
    throw new AppError("daemon_unavailable", "The scalpel daemon closed the connection before answering.");
  }
  if (!answer.ok) {
    socket.destroy();
    throw new AppError("daemon_refused", answer.refused);
  }
  return { socket, answer };
}
