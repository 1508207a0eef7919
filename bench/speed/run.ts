// The speed bench of `npm run bench`: for each TypeScript backend (tsserver through
// typescript-language-server, and TypeScript 7's native `tsc --lsp`) on generated projects of
// 1k, 5k and 20k files, the cold and warm-restart starts, the warm tool calls beside the raw LSP
// request underneath, and the peak RSS of scalpel and of each server's process tree.
//
// One scalpel start per cold round with the project's symbol index removed (activation → first find_symbol),
// then, once its index build said "symbol index ready", a restart on that index (→ first
// find_symbol, then → first complete find_referencing_symbols, both timed from the start). The
// last restart stays up for the warm rounds, asked in pairs with a raw LspSession to the same
// backend, alternating order per round (the machine is shared; only side-by-side figures compare).
// Then what `verify: true` adds to two edits, each beside the same edit without it (verify-pairs.ts).
//
// BENCH_SIZES (1000,5000,20000), BENCH_BACKENDS (tsserver,native), BENCH_COLD_ROUNDS (3; 2 at
// 20k), BENCH_WARM_ROUNDS (7; 5 at 5k, 3 at 20k), BENCH_SPEED_JSON (default $TMPDIR/scalpel-speed.json).

import { realpathSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Location, SymbolInformation, WorkspaceEdit } from "vscode-languageserver-protocol";
import { typescriptAdapter } from "../../language-servers/typescript.js";
import { typescriptNativeAdapter } from "../../language-servers/typescript-native.js";
import { log } from "../../src/core/log.js";
import { LspSession } from "../../src/lsp/session.js";
import { symbolIndexFolder } from "../../src/symbols/index-store.js";
import { generateLargeFixture, type LargeFixture } from "../../test/helpers/fixtures.js";
import { callOk, type ScalpelHandle, startScalpel } from "../../test/helpers/mcp.js";
import {
  indexEnded,
  median,
  pairedRounds,
  peakRssMb,
  spread,
  table,
  timed,
  treePeakRssMb,
  untilLogged,
} from "./measure.js";
import { measureVerify, type VerifyPair, verifyReport } from "./verify-pairs.js";

// scalpel's own state (the symbol index this bench removes per cold round) lives under SCALPEL_HOME:
// one folder for the bench and every scalpel it starts.
process.env.SCALPEL_HOME ??= await mkdtemp(join(tmpdir(), "scalpel-bench-home-"));

type Backend = "tsserver" | "native";
const adapters = { tsserver: typescriptAdapter, native: typescriptNativeAdapter } as const;

const listEnv = (name: string, fallback: string) =>
  (process.env[name] ?? fallback)
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
const sizes = listEnv("BENCH_SIZES", "1000,5000,20000").map(Number);
const backends = listEnv("BENCH_BACKENDS", "tsserver,native") as Backend[];
const coldRounds = (n: number) => Number(process.env.BENCH_COLD_ROUNDS ?? (n >= 20_000 ? 2 : 3));
const warmRounds = (n: number) =>
  Number(process.env.BENCH_WARM_ROUNDS ?? (n >= 20_000 ? 3 : n >= 5000 ? 5 : 7));
/** Raw requests wait as long as a big project needs (the session's default is 30 s). */
const slow = { timeoutMs: 600_000 };
/** Bound on one index build: past it the run goes on and the row says the index was not ready. */
const indexWaitMs = (n: number) => Math.max(120_000, n * 30);

interface Pair {
  label: string;
  raw?: () => Promise<unknown>;
  tool: () => Promise<unknown>;
}

interface PairResult {
  label: string;
  raw: number[];
  scalpel: number[];
}

export interface SpeedResult {
  backend: Backend;
  files: number;
  serverVersion?: string | undefined;
  /** Raw server: spawn → first complete textDocument/references, once. */
  rawColdReferences: number;
  /** Raw server: spawn → first workspace/symbol answer, in the same run. */
  rawColdWorkspaceSymbol: number;
  /** scalpel with the project's symbol index removed: start → first find_symbol. */
  coldFindSymbol: number[];
  /** Each cold start's index build, start → "symbol index ready" (undefined: not within the bound). */
  indexBuild: (number | undefined)[];
  /** Restart: start → MCP handshake and tools/list answered (the floor of the next two). */
  restartConnected: number[];
  /** Restart on the index the cold run built: start → first find_symbol. */
  warmRestartFindSymbol: number[];
  /** Same restart: start → first complete find_referencing_symbols (asked after that find_symbol). */
  restartReferences: number[];
  warm: PairResult[];
  /** The same edits with and without `verify: true` (verify-pairs.ts). */
  verify: VerifyPair[];
  rssMb: {
    /** The highest VmHWM of scalpel's process over the cold rounds (each builds the index). */
    scalpelCold?: number | undefined;
    scalpel?: number | undefined;
    scalpelServers?: number | undefined;
    rawServer?: number | undefined;
  };
  notes: string[];
}

/** Every scalpel still running, closed when a project's run ends however it ends. */
const live = new Set<ScalpelHandle>();

/** Starts scalpel on `dir`; `connected` is start → the MCP handshake and tools/list answered. */
async function start(
  dir: string,
  backend: Backend,
): Promise<{ h: ScalpelHandle; t0: number; connected: number }> {
  const t0 = performance.now();
  const h = await startScalpel({ project: dir, env: { SCALPEL_TS_BACKEND: backend } });
  live.add(h);
  return { h, t0, connected: performance.now() - t0 };
}

async function runOne(backend: Backend, n: number, say: (s: string) => void): Promise<SpeedResult> {
  const dir = await mkdtemp(join(tmpdir(), `scalpel-speed-${backend}-${n}-`));
  let session: LspSession | undefined;
  try {
    const tGen = performance.now();
    const fx: LargeFixture = await generateLargeFixture(dir, n);
    say(
      `${backend} ${n}: generated ${fx.files.length} files in ${((performance.now() - tGen) / 1000).toFixed(1)} s`,
    );
    const notes: string[] = [];
    const site = fx.computeSites[Math.floor(fx.computeSites.length / 2)]!;
    // A name found in two files (its module and the next one's import): what an agent looks up.
    const midId = String(Math.floor(n / 2)).padStart(3, "0");
    const rareName = `helper${midId}`;

    const spec = adapters[backend].spec(dir);
    if ("missing" in spec) throw new Error(`${backend}: ${spec.missing}`);
    const t0 = performance.now();
    const raw = new LspSession(spec, dir, log.child("bench"));
    session = raw;
    raw.start();
    const core = await raw.sync(join(dir, fx.coreFile));
    const refParams = {
      textDocument: { uri: core.uri },
      position: { line: 3, character: 2 },
      // The request scalpel sends (the native server's answer leaves import sites out without it).
      context: { includeDeclaration: adapters[backend].referencesWithDeclaration === true },
    };
    const rawRefs = await raw.request<Location[] | null>("textDocument/references", refParams, slow);
    const rawColdReferences = performance.now() - t0;
    await raw.request<SymbolInformation[] | null>("workspace/symbol", { query: rareName }, slow);
    const rawColdWorkspaceSymbol = performance.now() - t0;
    say(
      `${backend} ${n}: raw spawn → references ${rawColdReferences.toFixed(0)} ms (${rawRefs?.length ?? 0} sites)`,
    );

    const result: SpeedResult = {
      backend,
      files: fx.files.length,
      serverVersion: raw.serverInfo?.version,
      rawColdReferences,
      rawColdWorkspaceSymbol,
      coldFindSymbol: [],
      indexBuild: [],
      restartConnected: [],
      warmRestartFindSymbol: [],
      restartReferences: [],
      warm: [],
      verify: [],
      rssMb: {},
      notes,
    };
    const findRare = (h: ScalpelHandle) => callOk(h, "find_symbol", { name_path_pattern: rareName });
    const refArgs = { name_path: "Core/compute", relative_path: fx.coreFile, context_lines: 0 };
    let warmH: ScalpelHandle | undefined;
    const rounds = coldRounds(n);
    for (let r = 0; r < rounds; r++) {
      await rm(symbolIndexFolder(realpathSync(dir)), { recursive: true, force: true });
      const cold = await start(dir, backend);
      const fs = await attempt(notes, "cold find_symbol", () => findRare(cold.h));
      if (fs) result.coldFindSymbol.push(performance.now() - cold.t0);
      if ((fs as { complete?: boolean } | undefined)?.complete === false)
        notes.push("a cold find_symbol said complete: false");
      const ready = await untilLogged(cold.h, /symbol index ready/, indexWaitMs(n), 100);
      result.indexBuild.push(ready ? performance.now() - cold.t0 : undefined);
      if (!ready) notes.push(`the index build did not finish within ${indexWaitMs(n) / 1000} s`);
      const coldPeak = peakRssMb(cold.h.pid);
      if (coldPeak !== undefined)
        result.rssMb.scalpelCold = Math.max(result.rssMb.scalpelCold ?? 0, coldPeak);
      say(
        `${backend} ${n}: cold run peak RSS: scalpel ${mb(coldPeak)}, its servers ${mb(treePeakRssMb(cold.h.pid))}`,
      );
      await cold.h.close();

      const warm = await start(dir, backend);
      result.restartConnected.push(warm.connected);
      if (await attempt(notes, "restart find_symbol", () => findRare(warm.h)))
        result.warmRestartFindSymbol.push(performance.now() - warm.t0);
      if (
        await attempt(notes, "restart find_referencing_symbols", () =>
          callOk(warm.h, "find_referencing_symbols", refArgs),
        )
      )
        result.restartReferences.push(performance.now() - warm.t0);
      say(
        `${backend} ${n}: round ${r + 1}/${rounds}: cold find_symbol ${result.coldFindSymbol.at(-1)?.toFixed(0)} ms, index ${ready ? `${(result.indexBuild.at(-1)! / 1000).toFixed(1)} s` : "not ready"}, restart find_symbol ${result.warmRestartFindSymbol.at(-1)?.toFixed(0)} ms, restart → references ${result.restartReferences.at(-1)?.toFixed(0)} ms`,
      );
      if (r < rounds - 1) await warm.h.close();
      else warmH = warm.h;
    }
    const h = warmH!;
    // The restart re-checks every file against the index in the background; warm figures wait for it.
    if (!(await untilLogged(h, indexEnded, indexWaitMs(n), 100)))
      notes.push("warm rounds ran while the restart's index check was still going");

    const userPath = join(dir, site.relative_path);
    await raw.sync(userPath);
    const pairs: Pair[] = [
      {
        label: `find_symbol ${rareName} (unscoped) ↔ workspace/symbol`,
        raw: () => raw.request("workspace/symbol", { query: rareName }, slow),
        tool: () => findRare(h),
      },
      {
        label: "find_symbol Core/compute (unscoped; every file names compute) ↔ workspace/symbol",
        raw: () => raw.request("workspace/symbol", { query: "compute" }, slow),
        tool: () => callOk(h, "find_symbol", { name_path_pattern: "Core/compute" }),
      },
      {
        label: "find_referencing_symbols ↔ references",
        raw: () => raw.request("textDocument/references", refParams, slow),
        tool: () => callOk(h, "find_referencing_symbols", refArgs),
      },
      {
        label: "get_diagnostics_for_file ↔ diagnostics (pull or settled push)",
        raw: () => raw.diagnostics(userPath),
        tool: () => callOk(h, "get_diagnostics_for_file", { relative_path: site.relative_path }),
      },
      {
        label: "rename_symbol dry run ↔ rename",
        raw: () =>
          raw.request<WorkspaceEdit | null>(
            "textDocument/rename",
            {
              textDocument: { uri: core.uri },
              position: { line: 3, character: 2 },
              newName: "computeValue",
            },
            slow,
          ),
        tool: () =>
          callOk(h, "rename_symbol", {
            name_path: "Core/compute",
            relative_path: fx.coreFile,
            new_name: "computeValue",
            dry_run: true,
          }),
      },
    ];
    const measured: PairResult[] = pairs.map((p) => ({ label: p.label, raw: [], scalpel: [] }));
    const wr = warmRounds(n);
    await pairedRounds(pairs, wr, {
      first: async (p) => {
        await attempt(notes, `first raw ${p.label}`, async () => p.raw?.());
        await attempt(notes, `first ${p.label}`, p.tool);
      },
      raw: async (p, k) => {
        const t = p.raw ? await attempt(notes, `raw ${p.label}`, () => timed(p.raw!)) : undefined;
        if (t !== undefined) measured[k]!.raw.push(t);
      },
      tool: async (p, k) => {
        const t = await attempt(notes, p.label, () => timed(p.tool));
        if (t !== undefined) measured[k]!.scalpel.push(t);
      },
    });
    result.warm = measured;
    // After the read-only pairs: these edits change the project (a body, a file's place).
    result.verify = await measureVerify(h, n, wr, notes);
    say(
      `${backend} ${n}: ${verifyReport([{ backend, files: n, pairs: result.verify }])
        .split("\n")
        .slice(2)
        .join("; ")}`,
    );
    result.rssMb = {
      scalpelCold: result.rssMb.scalpelCold,
      scalpel: peakRssMb(h.pid),
      scalpelServers: treePeakRssMb(h.pid),
      rawServer: raw.pid === undefined ? undefined : sumDefined(peakRssMb(raw.pid), treePeakRssMb(raw.pid)),
    };
    return result;
  } finally {
    for (const h of live) await h.close();
    live.clear();
    await session?.shutdown();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs one measured step; a failure (a timeout on a big project) becomes a note, not the end of the run. */
async function attempt<T>(notes: string[], what: string, fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (e) {
    notes.push(`${what} failed: ${(e instanceof Error ? e.message : String(e)).slice(0, 200)}`);
    return undefined;
  }
}

function sumDefined(...xs: (number | undefined)[]): number | undefined {
  const d = xs.filter((x): x is number => x !== undefined);
  return d.length ? d.reduce((a, b) => a + b, 0) : undefined;
}

const mb = (x: number | undefined) => (x === undefined ? "—" : `${x.toFixed(0)} MB`);
const ms = (x: number) => `${x.toFixed(x < 10 ? 1 : 0)} ms`;

export function report(results: SpeedResult[]): string {
  const out: string[] = [];
  out.push("Starts (median (min–max) of the cold rounds; the raw server once):");
  out.push(
    table(
      [
        "backend",
        "files",
        "raw spawn → references",
        "cold → find_symbol",
        "index build",
        "restart → connected",
        "restart → find_symbol",
        "of it after the handshake",
        "restart → references",
        "scalpel RSS: cold",
        "warm",
        "its server tree",
        "raw server tree",
      ],
      results.map((r) => [
        r.backend,
        String(r.files),
        ms(r.rawColdReferences),
        spread(r.coldFindSymbol),
        spread(r.indexBuild.filter((x): x is number => x !== undefined)),
        spread(r.restartConnected),
        spread(r.warmRestartFindSymbol),
        spread(r.warmRestartFindSymbol.map((t, i) => t - (r.restartConnected[i] ?? 0))),
        spread(r.restartReferences),
        mb(r.rssMb.scalpelCold),
        mb(r.rssMb.scalpel),
        mb(r.rssMb.scalpelServers),
        mb(r.rssMb.rawServer),
      ]),
    ),
  );
  out.push("");
  out.push("Warm (median (min–max) of the paired rounds; ratio and extra of the medians):");
  const rows: string[][] = [];
  for (const r of results)
    for (const w of r.warm) {
      const raw = median(w.raw);
      const tool = median(w.scalpel);
      rows.push([
        r.backend,
        String(r.files),
        w.label,
        spread(w.raw),
        spread(w.scalpel),
        `${(tool / raw).toFixed(2)}×`,
        `+${ms(tool - raw)}`,
      ]);
    }
  out.push(
    table(["backend", "files", "scalpel tool ↔ raw request", "raw", "scalpel", "ratio", "extra"], rows),
  );
  out.push("");
  out.push(verifyReport(results.map((r) => ({ backend: r.backend, files: r.files, pairs: r.verify ?? [] }))));
  for (const r of results)
    for (const note of new Set(r.notes)) out.push(`note (${r.backend} ${r.files}): ${note}`);
  return out.join("\n");
}

export async function runSpeed(): Promise<void> {
  const jsonPath = process.env.BENCH_SPEED_JSON ?? join(tmpdir(), "scalpel-speed.json");
  const say = (s: string) => console.error(`[${new Date().toISOString().slice(11, 19)}] ${s}`);
  const results: SpeedResult[] = [];
  const tAll = performance.now();
  for (const n of sizes)
    for (const backend of backends) {
      const spec = adapters[backend].spec(tmpdir());
      if ("missing" in spec) {
        say(`${backend}: not available (${spec.missing}); skipped`);
        continue;
      }
      const t = performance.now();
      try {
        results.push(await runOne(backend, n, say));
      } catch (e) {
        say(`${backend} ${n}: failed: ${e instanceof Error ? e.message : String(e)}`);
      }
      say(`${backend} ${n}: ${((performance.now() - t) / 1000).toFixed(0)} s`);
      // Written after every project, so that a long run stopped halfway keeps what it measured.
      await writeFile(jsonPath, `${JSON.stringify({ results }, null, 2)}\n`);
    }
  console.log(
    `scalpel speed bench — ${((performance.now() - tAll) / 1000).toFixed(0)} s, JSON in ${jsonPath}`,
  );
  console.log(report(results));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runSpeed().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
