/**
 * Starts a process that outlives its starter: the per-user daemon (src/daemon/connect.ts). It gets
 * its own session and process group (`detached`), no stdin/stdout, its stderr in a file of the
 * user's, and the starter's environment (so `SCALPEL_HOME` says whose daemon it is). Its language
 * servers are its own children in their own groups (spawn.ts); it stops them when it ends.
 */
import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";

export interface Detached {
  pid: number | undefined;
  /** True once the process has ended (it failed at start, or found another in its place). */
  exited(): boolean;
}

/** `cwd`: a folder of the user's own, not the starter's (a project the daemon may outlive). */
export function startDetached(
  command: string,
  args: readonly string[],
  stderrFile: string,
  cwd: string,
): Detached {
  // 0600: the log may name the user's projects.
  const fd = openSync(stderrFile, "a", 0o600);
  try {
    const child = spawn(command, [...args], {
      cwd,
      detached: true,
      stdio: ["ignore", "ignore", fd],
      env: process.env,
    });
    let ended = false;
    // Seen while the starter still runs (unref'd: it does not keep the starter alive).
    child.once("exit", () => {
      ended = true;
    });
    child.once("error", () => {
      ended = true;
    });
    child.unref();
    return { pid: child.pid, exited: () => ended };
  } finally {
    closeSync(fd);
  }
}
