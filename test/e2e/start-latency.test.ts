// @tsserver-only the process start and the handshake are scalpel's, not the server's: one backend is enough
/**
 * Spawn → `initialize` answered in under a second (issue 21, acceptance 3; the bench's target is
 * 300 ms): the command loads its bundle with the V8 code cache (src/launch.ts) and nothing heavy
 * runs before the answer. Timed over the raw stdio pipe (no SDK client in between), best of three
 * starts: one start on a loaded 2-core machine can wait for the CPU, three rarely all do.
 */
import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { copyFixture, type TempProject } from "../helpers/fixtures.js";
import { assertCliBuilt, cliPath } from "../helpers/mcp.js";

/** ms from spawn to the `initialize` answer on stdout; the process is then closed. */
function timeToInitialize(project: string): Promise<number> {
  assertCliBuilt();
  const began = performance.now();
  const child = spawn(process.execPath, [cliPath, "mcp", "--project", project, "--trust"], {
    stdio: ["pipe", "pipe", "ignore"],
    env: { ...process.env, SCALPEL_LOG: "warn" },
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

describe("spawn → initialize (e2e)", () => {
  let fx: TempProject;
  before(async () => {
    fx = await copyFixture("ts-basic");
  });
  after(async () => {
    await fx?.cleanup();
  });

  it("answers initialize within a second of the spawn (best of three)", async () => {
    const times: number[] = [];
    for (let i = 0; i < 3; i++) times.push(await timeToInitialize(fx.dir));
    const best = Math.min(...times);
    assert.ok(best < 1000, `initialize answered ${times.map((t) => t.toFixed(0)).join(", ")} ms after spawn`);
  });
});
