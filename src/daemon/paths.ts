/**
 * Where the per-user daemon listens: a Unix socket in `$SCALPEL_HOME/daemon/`, a folder only the
 * user can open (0700, theirs). Anyone who can connect to the socket can run every tool as the user,
 * so a folder or socket owned by someone else, or open to others, is refused rather than used: a
 * socket planted by another user would see every request. The socket's name holds the version, the
 * build and the environment's key (daemon/env-key.ts): a client never joins a daemon of another
 * build or environment, and a new one starts beside it.
 */
import { lstatSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { AppError } from "../core/errors.js";
import { buildId } from "../core/startup.js";
import { scalpelHome, stateDirMode } from "../core/user-state.js";
import { version } from "../core/version.js";
import { environmentKey } from "./env-key.js";

export interface DaemonPaths {
  dir: string;
  socket: string;
  /** Held (created exclusively) by the client that starts a daemon, so two clients start one. */
  lock: string;
  /** The daemon's stderr. */
  log: string;
}

/** The start of the names of this version and build's files. */
function buildPrefix(env: NodeJS.ProcessEnv): string {
  return `scalpel-${version.replace(/[^A-Za-z0-9.]/g, "_")}-${buildId(env)}-`;
}

function pathsOf(dir: string, name: string): DaemonPaths {
  return {
    dir,
    socket: join(dir, `${name}.sock`),
    lock: join(dir, `${name}.lock`),
    log: join(dir, `${name}.log`),
  };
}

/** The daemon of this version, build and environment, for the user of `env`. */
export function daemonPaths(env: NodeJS.ProcessEnv = process.env): DaemonPaths {
  return pathsOf(join(scalpelHome(env), "daemon"), `${buildPrefix(env)}${environmentKey(env)}`);
}

/** Every daemon of this version and build the folder has a socket of, whatever its environment. */
export function daemonsOfThisBuild(env: NodeJS.ProcessEnv = process.env): DaemonPaths[] {
  const dir = join(scalpelHome(env), "daemon");
  const prefix = buildPrefix(env);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.startsWith(prefix) && n.endsWith(".sock"))
    .map((n) => pathsOf(dir, n.slice(0, -".sock".length)));
}

function refuse(what: string): never {
  throw new AppError(
    "daemon_refused",
    `${what}; scalpel will not use it. Remove it, or run with --no-daemon.`,
  );
}

/** Whether `mode`/`uid` is the user's own and closed to others. */
function ownedAndPrivate(stat: { uid: number; mode: number }): boolean {
  const uid = process.getuid?.();
  return (uid === undefined || stat.uid === uid) && (stat.mode & 0o077) === 0;
}

/** Creates the daemon folder (and $SCALPEL_HOME) 0700 if missing; refuses one that is not the user's alone. */
export function secureDaemonDir(paths: DaemonPaths): void {
  // A Unix socket's path holds at most 107 bytes on Linux (103 on macOS).
  if (Buffer.byteLength(paths.socket) > 103)
    throw new AppError(
      "daemon_refused",
      "The daemon's socket path under $SCALPEL_HOME is too long for a Unix socket; set SCALPEL_HOME to a shorter folder, or run with --no-daemon.",
    );
  mkdirSync(paths.dir, { recursive: true, mode: stateDirMode });
  const stat = lstatSync(paths.dir);
  if (!stat.isDirectory()) refuse("The daemon folder ($SCALPEL_HOME/daemon) is not a folder");
  if (!ownedAndPrivate(stat))
    refuse("The daemon folder ($SCALPEL_HOME/daemon) belongs to another user or others may open it");
}

/** True when a socket is there and is the user's alone; false when nothing is there; refuses others. */
export function socketIsPrivate(paths: DaemonPaths): boolean {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(paths.socket);
  } catch {
    return false;
  }
  if (!stat.isSocket()) refuse("The daemon's socket path holds something that is not a socket");
  if (!ownedAndPrivate(stat)) refuse("The daemon's socket belongs to another user or others may open it");
  return true;
}
