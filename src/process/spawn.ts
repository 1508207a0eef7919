/**
 * Spawning language servers and making sure none outlives scalpel. Each server runs in its own
 * process group (`detached`) so that the helpers it forks (workers, macro expanders) can be
 * signalled together with it.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { execa, type ResultPromise } from "execa";

/** A program to start: what a language server or a bounded command runs. */
export interface LaunchCommand {
  command: string;
  args: string[];
  env?: Record<string, string>;
  /**
   * A temporary folder of its own (TMPDIR, TMP, TEMP), removed when its process group is ended:
   * for a server that leaves files or folders in the temporary directory behind.
   */
  privateTemp?: boolean;
}

import type { Logger } from "../core/log.js";

type Child = ResultPromise<{
  detached: true;
  buffer: false;
  reject: false;
  stdin: "pipe";
  stdout: "pipe";
  stderr: "pipe";
}>;

export interface ServerProcess {
  readonly pid: number | undefined;
  readonly child: Child;
  /** Resolves once the direct child has exited (never rejects). */
  readonly exited: Promise<{ code: number | null; signal: string | null; spawnError?: string }>;
  readonly hasExited: boolean;
}

/** Process-group ids of every server that may still have live processes. */
const liveGroups = new Set<number>();
/** A group's private temporary folder (LaunchCommand.privateTemp), removed with the group. */
const tempOf = new Map<number, string>();

function removeTemp(pgid: number): void {
  const dir = tempOf.get(pgid);
  if (dir === undefined) return;
  tempOf.delete(pgid);
  rmSync(dir, { recursive: true, force: true });
}

export function spawnServer(launch: LaunchCommand, cwd: string, logger: Logger): ServerProcess {
  const temp = launch.privateTemp ? mkdtempSync(join(tmpdir(), "scalpel-server-")) : undefined;
  const child = execa(launch.command, launch.args, {
    cwd,
    env: { ...launch.env, ...(temp ? { TMPDIR: temp, TMP: temp, TEMP: temp } : {}) },
    extendEnv: true,
    detached: true,
    // Our own shutdown sequence handles the tree; execa's cleanup only covers the direct child.
    cleanup: false,
    buffer: false,
    reject: false,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
    stripFinalNewline: false,
  }) as Child;
  const pid = child.pid;
  if (pid !== undefined) liveGroups.add(pid);
  if (temp !== undefined) {
    if (pid !== undefined) tempOf.set(pid, temp);
    else rmSync(temp, { recursive: true, force: true });
  }
  let hasExited = false;
  const exited = new Promise<{ code: number | null; signal: string | null; spawnError?: string }>(
    (resolve) => {
      child.once("exit", (code, signal) => {
        hasExited = true;
        resolve({ code, signal });
      });
      child.once("error", (err: NodeJS.ErrnoException) => {
        // A spawn failure (ENOENT, EACCES) emits "error" without "exit".
        if (pid === undefined || err.code === "ENOENT" || err.code === "EACCES") {
          hasExited = true;
          resolve({ code: null, signal: null, spawnError: err.code ?? err.message });
        } else {
          logger.debug("server process error", err.message);
        }
      });
    },
  );
  // The result promise settles with the exit; nobody awaits it, so swallow it here.
  child.catch(() => undefined);
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => {
    for (const line of chunk.split(/\r?\n/)) if (line.trim() !== "") logger.debug(`stderr: ${line}`);
  });
  // Writing to a dead server must not become an uncaught EPIPE.
  child.stdin?.on("error", (err) => logger.debug("server stdin error", err.message));
  return {
    pid,
    child,
    exited,
    get hasExited() {
      return hasExited;
    },
  };
}

/**
 * True while a live process of the group exists. Zombies do not count: an orphaned helper is
 * reaped by init, and a container's init may take its time (or never do it).
 */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch {
    // ESRCH, or EPERM: the id was reused by someone else's group, which is not ours to wait for.
    return false;
  }
  return process.platform !== "linux" || liveMembersLinux(pgid) !== 0;
}

function liveMembersLinux(pgid: number): number {
  let n = 0;
  try {
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
        // Fields after the parenthesised command: state, ppid, pgrp, …
        const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        if (Number(pgrp) === pgid && state !== "Z") n++;
      } catch {
        // The process ended while we looked.
      }
    }
  } catch {
    return 1;
  }
  return n;
}

export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
  if (!groupAlive(pgid)) liveGroups.delete(pgid);
}

/** SIGTERM the group, then SIGKILL whatever is left after `graceMs`. Never throws. */
export async function terminateGroup(pgid: number, graceMs = 1000): Promise<void> {
  signalGroup(pgid, "SIGTERM");
  const deadline = Date.now() + graceMs;
  while (groupAlive(pgid) && Date.now() < deadline) await sleep(25);
  if (groupAlive(pgid)) signalGroup(pgid, "SIGKILL");
  // A SIGKILLed process disappears from the table once reaped; give the kernel a moment.
  const reapDeadline = Date.now() + 500;
  while (groupAlive(pgid) && Date.now() < reapDeadline) await sleep(10);
  liveGroups.delete(pgid);
  removeTemp(pgid);
}

/**
 * For `process.on("exit")`, where nothing asynchronous runs: SIGKILL every group we started.
 * Servers also watch our pid (`processId` in initialize), this is the guarantee.
 */
export function killAllServersSync(): void {
  for (const pgid of liveGroups) {
    try {
      process.kill(-pgid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  liveGroups.clear();
  for (const pgid of [...tempOf.keys()]) removeTemp(pgid);
}

export function liveServerGroups(): number[] {
  return [...liveGroups];
}
