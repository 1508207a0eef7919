// The memory driver (issue #22): scalpel's own peak RSS (VmHWM of its node process, not its
// language servers) on the generated projects of the speed bench, native backend. Run it alone
// (`node --import tsx bench/memory/run.ts`) to measure a change without the whole speed bench.
//
// For each size: a cold start with the project's symbol index removed (the build's peak), then a
// restart on that index with warm calls (unscoped find_symbol twice, references three times, an
// overview), each start's VmHWM and its VmRSS at the end. MEM_SIZES (1000,5000,20000);
// MEM_DIR keeps the generated projects and $SCALPEL_HOME between runs (the 20k index build takes
// minutes), MEM_COLD=0 skips the cold start when an index is there already; MEM_NODE_OPTIONS is
// passed to scalpel's node (e.g. --heapsnapshot-signal=SIGUSR2 to look inside); MEM_WAIT_S bounds
// each index build (default: 30 ms a file, at least 120 s).
import { existsSync, realpathSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout } from "node:timers/promises";
import { residentBytes } from "../../src/process/resident.js";
import { symbolIndexFolder } from "../../src/symbols/index-store.js";
import { generateLargeFixture } from "../../test/helpers/fixtures.js";
import { callOk, type ScalpelHandle, startScalpel } from "../../test/helpers/mcp.js";
import { indexEnded, peakRssMb, table, untilLogged } from "../speed/measure.js";

const base = process.env.MEM_DIR ?? (await mkdtemp(join(tmpdir(), "scalpel-memory-")));
process.env.SCALPEL_HOME ??= join(base, "home");
const sizes = (process.env.MEM_SIZES ?? "1000,5000,20000").split(",").map(Number);
const cold = process.env.MEM_COLD !== "0";
const say = (s: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${s}`);

function rssMb(pid: number): number | undefined {
  const bytes = residentBytes(pid);
  return bytes === undefined ? undefined : bytes / 1024 / 1024;
}

async function startOn(dir: string): Promise<ScalpelHandle> {
  const env: Record<string, string> = { SCALPEL_TS_BACKEND: "native" };
  if (process.env.MEM_NODE_OPTIONS) env.NODE_OPTIONS = process.env.MEM_NODE_OPTIONS;
  return startScalpel({ project: dir, env });
}

interface Row {
  files: number;
  coldPeak?: number | undefined;
  coldBuildS?: number | undefined;
  warmPeak?: number | undefined;
  warmEnd?: number | undefined;
  findSymbolMs: number[];
  referencesMs: number[];
}

async function runOne(n: number): Promise<Row> {
  const dir = join(base, `gen-${n}`);
  if (!existsSync(join(dir, "src", "core.ts"))) {
    await mkdir(dir, { recursive: true });
    await generateLargeFixture(dir, n);
    say(`${n}: generated`);
  }
  const waitMs = Number(process.env.MEM_WAIT_S ?? 0) * 1000 || Math.max(120_000, n * 30);
  const row: Row = { files: n + 1, findSymbolMs: [], referencesMs: [] };
  if (cold) {
    await rm(symbolIndexFolder(realpathSync(dir)), { recursive: true, force: true });
    const t0 = performance.now();
    const h = await startOn(dir);
    try {
      if (await untilLogged(h, /symbol index ready/, waitMs))
        row.coldBuildS = (performance.now() - t0) / 1000;
      row.coldPeak = peakRssMb(h.pid);
      say(
        `${n}: cold build ${row.coldBuildS?.toFixed(0) ?? "not done"} s, peak ${row.coldPeak?.toFixed(0)} MB`,
      );
    } finally {
      await h.close();
    }
  }
  const h = await startOn(dir);
  try {
    await untilLogged(h, indexEnded, waitMs);
    const mid = String(Math.floor(n / 2)).padStart(3, "0");
    const steps: string[] = [`ready ${mb(rssMb(h.pid))}`];
    const timed = async (out: number[], name: string, args: Record<string, unknown>) => {
      const t = performance.now();
      try {
        await callOk(h, name, args);
        out.push(performance.now() - t);
      } catch (e) {
        // A loaded machine's server may time out: the memory figures still count.
        say(`${n}: ${name} failed: ${(e instanceof Error ? e.message : String(e)).slice(0, 160)}`);
      }
      steps.push(`${name} ${mb(rssMb(h.pid))}`);
    };
    const refs = { name_path: "Core/compute", relative_path: "src/core.ts", context_lines: 0 };
    for (let i = 0; i < 2; i++) {
      await timed(row.findSymbolMs, "find_symbol", { name_path_pattern: `helper${mid}` });
      await timed(row.findSymbolMs, "find_symbol", { name_path_pattern: "Core/compute" });
    }
    for (let i = 0; i < 3; i++) await timed(row.referencesMs, "find_referencing_symbols", refs);
    await callOk(h, "get_symbols_overview", { relative_path: `src/mod${mid}.ts` });
    say(`${n}: RSS after each step: ${steps.join(", ")}`);
    row.warmPeak = peakRssMb(h.pid);
    row.warmEnd = rssMb(h.pid);
    say(`${n}: warm peak ${row.warmPeak?.toFixed(0)} MB, RSS at the end ${row.warmEnd?.toFixed(0)} MB`);
    // MEM_GREP: scalpel's own log lines that match it (run with SCALPEL_LOG=debug for the scans).
    if (process.env.MEM_GREP)
      for (const line of h.stderr.split("\n"))
        if (line.includes(process.env.MEM_GREP)) say(line.slice(0, 300));
    if (process.env.MEM_HOLD) {
      say(`${n}: holding scalpel (pid ${h.pid}) for ${process.env.MEM_HOLD} s`);
      await setTimeout(Number(process.env.MEM_HOLD) * 1000);
    }
  } finally {
    await h.close();
  }
  return row;
}

const mb = (x: number | undefined) => (x === undefined ? "—" : `${x.toFixed(0)} MB`);
const rows: Row[] = [];
for (const n of sizes) rows.push(await runOne(n));
const ms = (xs: number[]) => xs.map((x) => x.toFixed(0)).join("/") || "—";
console.log("scalpel's own memory (VmHWM of its node process; native backend):");
console.log(
  table(
    ["files", "cold peak", "index build", "warm peak", "RSS at end", "find_symbol ms", "references ms"],
    rows.map((r) => [
      String(r.files),
      mb(r.coldPeak),
      r.coldBuildS === undefined ? "—" : `${r.coldBuildS.toFixed(0)} s`,
      mb(r.warmPeak),
      mb(r.warmEnd),
      ms(r.findSymbolMs),
      ms(r.referencesMs),
    ]),
  ),
);
if (!process.env.MEM_DIR) await rm(base, { recursive: true, force: true });
