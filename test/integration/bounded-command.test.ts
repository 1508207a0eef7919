// runBounded (src/process/bounded-command.ts): the whole-project checks' runner. A command that outlives
// its bound, or whose call is cancelled, is killed with everything it forked; output is kept whole.
import { strict as assert } from "node:assert";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { log } from "../../src/core/log.js";
import { runBounded } from "../../src/process/bounded-command.js";
import { groupAlive } from "../../src/process/spawn.js";
import { isAlive } from "../helpers/mcp.js";

const node = (script: string) => ({ command: process.execPath, args: ["-e", script] });

// Prints its pid and a child's pid (that ignores SIGTERM), then waits forever.
const forkAndHang = `
  const { spawn } = require("node:child_process");
  const c = spawn(process.execPath, ["-e", "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"], { stdio: "ignore" });
  console.log(JSON.stringify({ pid: process.pid, child: c.pid }));
  setInterval(() => {}, 1000);
`;

describe("runBounded", () => {
  it("keeps stdout and stderr whole and reports the exit code", async () => {
    const big = "x".repeat(200_000);
    const r = await runBounded(
      node(
        // Made by the child: an argument this long would exceed the kernel's limit for one (E2BIG).
        `process.stdout.write("x".repeat(${big.length}) + "\\nend\\n"); console.error("warn"); process.exit(3)`,
      ),
      process.cwd(),
      { timeoutMs: 30_000 },
      log,
    );
    assert.equal(r.exitCode, 3);
    assert.equal(r.stdout, `${big}\nend\n`);
    assert.equal(r.stderr, "warn\n");
    assert.equal(r.timedOut, false);
    assert.equal(r.outputCut, false);
  });

  it("past its bound kills the command and what it forked, and says so", async () => {
    let pids: { pid: number; child: number } | undefined;
    const started = Date.now();
    const r = await runBounded(
      node(forkAndHang),
      process.cwd(),
      {
        timeoutMs: 1_500,
        onLine: (line) => {
          if (line.startsWith("{")) pids = JSON.parse(line);
        },
      },
      log,
    );
    assert.equal(r.timedOut, true);
    assert.equal(r.exitCode, null);
    assert.ok(pids, `no pid line: ${r.stdout}`);
    assert.ok(Date.now() - started < 10_000);
    assert.equal(isAlive(pids.pid), false);
    assert.equal(isAlive(pids.child), false, "the SIGTERM-ignoring grandchild survived");
    assert.equal(groupAlive(pids.pid), false);
  });

  it("a cancelled call stops its command at once", async () => {
    // Cancelled once the command has forked (on a loaded machine node may take seconds to start,
    // so a fixed delay could cancel it before it printed anything).
    const dir = await mkdtemp(join(tmpdir(), "scalpel-bounded-"));
    const pidFile = join(dir, "pids.json");
    const ac = new AbortController();
    const running = runBounded(
      node(
        `${forkAndHang.replace("console.log(", `require("node:fs").writeFileSync(${JSON.stringify(pidFile)}, `)}`,
      ),
      process.cwd(),
      { timeoutMs: 60_000, signal: ac.signal },
      log,
    );
    try {
      let text = "";
      for (let i = 0; i < 600 && text === ""; i++) {
        await sleep(50);
        text = await readFile(pidFile, "utf8").catch(() => "");
      }
      const pids = JSON.parse(text) as { pid: number; child: number };
      const cancelled = Date.now();
      ac.abort();
      const r = await running;
      assert.equal(r.aborted, true);
      assert.ok(Date.now() - cancelled < 5_000);
      assert.equal(isAlive(pids.child), false);
      assert.equal(isAlive(pids.pid), false);
    } finally {
      ac.abort();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("a command that does not exist says why", async () => {
    const r = await runBounded(
      { command: "no-such-command-h7", args: [] },
      process.cwd(),
      { timeoutMs: 5_000 },
      log,
    );
    assert.equal(r.spawnError, "ENOENT");
    assert.equal(r.exitCode, null);
  });

  it("cuts output past the limit and says so", async () => {
    const r = await runBounded(
      node(`process.stdout.write("y".repeat(5000))`),
      process.cwd(),
      { timeoutMs: 30_000, maxOutputChars: 1000 },
      log,
    );
    assert.equal(r.stdout.length, 1000);
    assert.equal(r.outputCut, true);
  });
});
