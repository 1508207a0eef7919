/**
 * Spawn → `initialize` answered, over the raw stdio pipe (no SDK client in between): what the
 * start-latency test bounds and the bench reports.
 */
import { spawn } from "node:child_process";
import { assertCliBuilt, cliPath } from "./mcp.js";

/** ms from spawn to the `initialize` answer on stdout; the process is then closed (stdin ends). */
export function timeToInitialize(project: string, env: Record<string, string> = {}): Promise<number> {
  assertCliBuilt();
  const began = performance.now();
  const child = spawn(process.execPath, [cliPath, "mcp", "--project", project, "--trust"], {
    stdio: ["pipe", "pipe", "ignore"],
    // In-process: what is timed is scalpel's own start, not a daemon's (bench/daemon times that).
    env: { ...process.env, SCALPEL_LOG: "warn", SCALPEL_DAEMON: "0", ...env },
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.on("error", reject);
    child.on("exit", (code) => reject(new Error(`scalpel exited (${code}) before answering initialize`)));
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      out += chunk;
      if (!out.includes("\n")) return;
      const ms = performance.now() - began;
      const answer = JSON.parse(out.slice(0, out.indexOf("\n"))) as { id?: number; result?: unknown };
      child.removeAllListeners("exit");
      child.once("exit", () => (answer.id === 1 && answer.result ? resolve(ms) : reject(new Error(out))));
      child.stdin.end();
    });
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } },
    };
    child.stdin.write(`${JSON.stringify(initialize)}\n`);
  });
}
