// The daemon bench of `npm run bench` (issue 22, acceptance 5): on a generated project
// (test/helpers/fixtures.ts' generator, BENCH_DAEMON_FILES, default 5000) and the native TypeScript
// backend (BENCH_DAEMON_BACKEND), each round with a fresh SCALPEL_HOME (so a new daemon and no
// symbol index):
// - the first session: `scalpel mcp` spawned (it starts the daemon) → first complete
//   find_referencing_symbols (asked again while it says complete: false);
// - a second and a third session on the same project, each spawned while the others stay open →
//   its first complete find_referencing_symbols;
// - the memory held: the daemon and every process below it (its language servers), summed RSS,
//   with one session (once the symbol index is ready) and with three; each session's relay (the
//   `scalpel mcp` process the host started) is listed apart.
// Beside them, in the same run, the in-process cold start (SCALPEL_DAEMON=0) → first complete
// references: what every session paid before the daemon. BENCH_DAEMON_ROUNDS (2); BENCH_DAEMON=none
// skips it. Every daemon it starts is stopped at the end of its round.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { descendantsRssBytes } from "../../src/daemon/tree-memory.js";
import { residentBytes } from "../../src/process/resident.js";
import { generateLargeFixture } from "../../test/helpers/fixtures.js";
import { cliPath, type ScalpelHandle, startScalpel } from "../../test/helpers/mcp.js";
import { median, spread, table } from "../speed/measure.js";

const files = Number(process.env.BENCH_DAEMON_FILES ?? 5000);
const backend = process.env.BENCH_DAEMON_BACKEND ?? "native";
const rounds = Number(process.env.BENCH_DAEMON_ROUNDS ?? 2);
/** The targets. */
const secondSessionTargetMs = 1000;
const memoryTargetRatio = 1.2;

const say = (s: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] daemon bench: ${s}`);
const mb = (bytes: number) => bytes / 1024 / 1024;

const rssBytes = (pid: number): number => residentBytes(pid) ?? 0;

/** The daemon's pid and log, from its folder under `home` (one daemon per round). */
function daemonOf(home: string): { pid: number; log: string } | undefined {
  const dir = join(home, "daemon");
  const logFile = readdirSync(dir).find((f) => f.endsWith(".log"));
  if (!logFile) return undefined;
  const log = readFileSync(join(dir, logFile), "utf8");
  const pid = [...log.matchAll(/daemon \(\w+\) listening, pid (\d+)/g)].at(-1)?.[1];
  return pid === undefined ? undefined : { pid: Number(pid), log };
}

/** Daemon plus its tree, summed RSS; the largest of three samples a second apart (GC moves it). */
async function daemonMemory(pid: number): Promise<number> {
  let most = 0;
  for (let i = 0; i < 3; i++) {
    most = Math.max(most, rssBytes(pid) + descendantsRssBytes(pid));
    await sleep(1000);
  }
  return most;
}

const referencesArgs = { name_path: "Core/compute", relative_path: "src/core.ts", context_lines: 0 };

/** Spawn → first find_referencing_symbols that says it is complete, in ms. */
async function sessionToCompleteReferences(
  dir: string,
  env: Record<string, string>,
  via: "default" | "in-process",
): Promise<{ h: ScalpelHandle; ms: number; connected: number }> {
  const t0 = performance.now();
  const h = await startScalpel({ project: dir, env, via });
  const connected = performance.now() - t0;
  const args = referencesArgs;
  for (let i = 0; i < 600; i++) {
    const r = await h.call<{ complete?: boolean }>("find_referencing_symbols", args);
    if (r.isError) throw new Error(`find_referencing_symbols: ${r.text}`);
    if (r.structured?.complete !== false) return { h, ms: performance.now() - t0, connected };
    await sleep(100);
  }
  throw new Error("find_referencing_symbols never said complete");
}

interface Round {
  inProcessCold: number;
  firstSession: number;
  secondSession: number;
  /** The second session's spawn → initialize and tools/list answered (the relay and the handshake). */
  secondConnected: number;
  /** The first session's find_referencing_symbols again, just before the second session spawns. */
  warmReferences: number;
  thirdSession: number;
  oneSessionBytes: number;
  threeSessionsBytes: number;
  relayBytes: number[];
}

async function runRound(dir: string, r: number): Promise<Round> {
  const home = await mkdtemp(join(tmpdir(), "scalpel-bench-daemon-home-"));
  const env = {
    SCALPEL_HOME: home,
    SCALPEL_TS_BACKEND: backend,
    SCALPEL_KEEP_WARM: "30",
    SCALPEL_DAEMON_IDLE: "30",
  };
  const handles: ScalpelHandle[] = [];
  try {
    // In-process first, in a home of its own so that it leaves no symbol index to the daemon.
    const alone = await mkdtemp(join(tmpdir(), "scalpel-bench-daemon-alone-"));
    const inProcess = await sessionToCompleteReferences(dir, { ...env, SCALPEL_HOME: alone }, "in-process");
    await inProcess.h.close();
    await rm(alone, { recursive: true, force: true });
    say(`round ${r}: in-process cold → complete references ${inProcess.ms.toFixed(0)} ms`);

    const first = await sessionToCompleteReferences(dir, env, "default");
    handles.push(first.h);
    const daemon = daemonOf(home);
    if (!daemon) throw new Error("no daemon found after the first session");
    say(`round ${r}: first session (daemon started) → complete references ${first.ms.toFixed(0)} ms`);
    // One session's memory with its index built: what a second session could add to is settled.
    for (let i = 0; i < 1200 && !/symbol index ready/.test(daemonOf(home)?.log ?? ""); i++) await sleep(250);
    const oneSessionBytes = await daemonMemory(daemon.pid);
    // The floor of the next figure: the same call again in the first session, at the same moment.
    const t = performance.now();
    const again = await first.h.call("find_referencing_symbols", referencesArgs);
    if (again.isError) throw new Error(`find_referencing_symbols: ${again.text}`);
    const warmReferences = performance.now() - t;
    const second = await sessionToCompleteReferences(dir, env, "default");
    handles.push(second.h);
    const third = await sessionToCompleteReferences(dir, env, "default");
    handles.push(third.h);
    const threeSessionsBytes = await daemonMemory(daemon.pid);
    const relayBytes = handles.map((h) => rssBytes(h.pid));
    say(
      `round ${r}: second session ${second.ms.toFixed(0)} ms, third ${third.ms.toFixed(0)} ms; daemon+servers ${mb(oneSessionBytes).toFixed(0)} MB with one session, ${mb(threeSessionsBytes).toFixed(0)} MB with three`,
    );
    return {
      inProcessCold: inProcess.ms,
      firstSession: first.ms,
      secondSession: second.ms,
      secondConnected: second.connected,
      warmReferences,
      thirdSession: third.ms,
      oneSessionBytes,
      threeSessionsBytes,
      relayBytes,
    };
  } finally {
    await Promise.all(handles.map((h) => h.close().catch(() => undefined)));
    spawnSync(process.execPath, [cliPath, "daemon", "stop"], {
      env: { ...process.env, ...env },
      stdio: "ignore",
    });
    await rm(home, { recursive: true, force: true });
  }
}

export async function runDaemonBench(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), `scalpel-bench-daemon-${files}-`));
  try {
    const fx = await generateLargeFixture(dir, files);
    say(`generated ${fx.files.length} files; backend ${backend}, ${rounds} rounds`);
    const all: Round[] = [];
    for (let r = 1; r <= rounds; r++) all.push(await runRound(dir, r));
    const col = (k: keyof Omit<Round, "relayBytes">) => all.map((x) => x[k]);
    const mbs = (xs: number[]) => spread(xs.map(mb)).replace(/ ms/g, " MB");
    const ratios = all.map((x) => x.threeSessionsBytes / x.oneSessionBytes);
    const withRelays = all.map(
      (x) =>
        (x.threeSessionsBytes + x.relayBytes.reduce((a, b) => a + b, 0)) /
        (x.oneSessionBytes + x.relayBytes[0]!),
    );
    const second = median(col("secondSession"));
    const ratio = median(ratios);
    console.log(
      `scalpel daemon bench — ${fx.files.length} files, ${backend} backend, ${rounds} rounds (median (min–max))`,
    );
    console.log(
      table(
        ["measure", "figure", "target"],
        [
          ["in-process cold spawn → first complete references", spread(col("inProcessCold")), "—"],
          [
            "first session: spawn (starts the daemon) → first complete references",
            spread(col("firstSession")),
            "—",
          ],
          [
            "second session: spawn → first complete references",
            spread(col("secondSession")),
            `≤ ${secondSessionTargetMs} ms`,
          ],
          ["  of which spawn → MCP handshake and tools/list", spread(col("secondConnected")), "—"],
          ["  floor: the same call again in the first session", spread(col("warmReferences")), "—"],
          ["third session: spawn → first complete references", spread(col("thirdSession")), "—"],
          ["daemon + servers RSS, one session", mbs(col("oneSessionBytes")), "—"],
          ["daemon + servers RSS, three sessions", mbs(col("threeSessionsBytes")), "—"],
          ["three sessions ÷ one", ratios.map((x) => x.toFixed(2)).join(", "), `≤ ${memoryTargetRatio}`],
          ["each session's relay (`scalpel mcp`) RSS", mbs(all.flatMap((x) => x.relayBytes)), "—"],
          ["three sessions ÷ one, relays counted", withRelays.map((x) => x.toFixed(2)).join(", "), "—"],
        ],
      ),
    );
    console.log(
      `second session ≤ ${secondSessionTargetMs} ms: ${second <= secondSessionTargetMs ? "met" : "MISSED"} (${second.toFixed(0)} ms); three sessions ≤ ${memoryTargetRatio}× one: ${ratio <= memoryTargetRatio ? "met" : "MISSED"} (${ratio.toFixed(2)}×)`,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runDaemonBench().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
