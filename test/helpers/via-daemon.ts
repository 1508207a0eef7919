/**
 * The tests' two ways of serving (test/helpers/mcp.ts' startScalpel): in-process, or through the
 * default path — `scalpel mcp` relayed to the per-user daemon — for the files run `@via daemon`.
 */
import { spawnSync } from "node:child_process";

/**
 * How a test's scalpel serves. "in-process" (`SCALPEL_DAEMON=0`): each session alone, what most
 * tests want (isolated, its process tree under its own pid). "default": `scalpel mcp` as a user
 * runs it, relayed to the per-user daemon of the test's SCALPEL_HOME, shared by the file's sessions;
 * a file tagged `// @via daemon` runs a second time this way (test/run.mjs sets SCALPEL_TEST_VIA).
 */
export type Via = "in-process" | "default";

export const testVia: Via = process.env.SCALPEL_TEST_VIA === "daemon" ? "default" : "in-process";

/** Every daemon environment a test started, stopped when the test process exits. */
const daemonEnvs = new Map<string, NodeJS.ProcessEnv>();
let cliOf = "";

/**
 * The environment of a session through the default path: short bounds (a project nobody uses
 * stops its servers after 2 s, the daemon ends 5 s after its last session), and the daemon stopped
 * at once when the test process ends, so that nothing is left running after a test run.
 */
export function daemonDefaultEnv(env: NodeJS.ProcessEnv, cli: string): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { SCALPEL_KEEP_WARM: "2", SCALPEL_DAEMON_IDLE: "5", ...env };
  delete out.SCALPEL_DAEMON;
  const key = JSON.stringify(Object.entries(out).sort());
  if (daemonEnvs.size === 0) process.on("exit", stopTestDaemons);
  daemonEnvs.set(key, out);
  cliOf = cli;
  return out;
}

/** `scalpel daemon stop` for each SCALPEL_HOME the tests' daemons used (every environment of it). */
export function stopTestDaemons(): void {
  const homes = new Map<string, NodeJS.ProcessEnv>();
  for (const env of daemonEnvs.values()) homes.set(env.SCALPEL_HOME ?? "", env);
  for (const env of homes.values())
    spawnSync(process.execPath, [cliOf, "daemon", "stop"], { env, stdio: "ignore" });
  daemonEnvs.clear();
}

/** Waits until the session's stderr says it relays to the daemon; shuts it down and throws if not. */
export async function relayed(transport: {
  readonly stderr: string;
  shutdown(graceMs: number): Promise<unknown>;
}): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!/relaying stdio to the per-user daemon/.test(transport.stderr)) {
    if (Date.now() > deadline) {
      await transport.shutdown(2000);
      throw new Error(
        `run @via daemon, but scalpel did not relay to the daemon:\n${transport.stderr.slice(-3000)}`,
      );
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}
