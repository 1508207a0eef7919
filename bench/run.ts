// npm run bench: medians and ratios measured side by side in one run, on a generated project.
// Compares scalpel's tools (over MCP stdio, as an agent sees them) with the raw language-server
// request underneath (the floor), so the bridge's own overhead shows as a ratio, not an absolute.
// Both run at once and every round asks each pair back to back, in alternating order: on a shared
// machine the load changes from second to second, and a raw series measured before the scalpel
// series compared two different machines. BENCH_FILES (300) sets the project size, BENCH_ROUNDS (9)
// the rounds, BENCH_OVERHEAD_BACKENDS (tsserver,native) the TypeScript backends, BENCH_JSON a file
// to write the figures to. The raw references request is the one scalpel sends (with the
// declaration on the native server, which scalpel then drops). Then the speed bench (bench/speed/run.ts:
// both TypeScript backends on 1k/5k/20k-file projects, and verify's added time beside the same edits
// without it; BENCH_SIZES=none skips it) — it writes its
// JSON to BENCH_SPEED_JSON or $TMPDIR/scalpel-speed.json. Then the real-repository tier
// (bench/real/run.ts: rxjs, zod and date-fns when BENCH_DATE_FNS names a checkout; BENCH_REAL=none
// skips it). Then the daemon bench (bench/daemon/run.ts: a second session's start and three
// sessions' memory beside one's, on a 5k-file project; BENCH_DAEMON=none skips it).
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { typescriptAdapter } from "../language-servers/typescript.js";
import { typescriptNativeAdapter } from "../language-servers/typescript-native.js";
import { log } from "../src/core/log.js";
import type { LanguageAdapter } from "../src/languages/adapter.js";
import { LspSession } from "../src/lsp/session.js";
import { generateLargeFixture } from "../test/helpers/fixtures.js";
import { callOk, type ScalpelHandle, startScalpel } from "../test/helpers/mcp.js";
import { runDaemonBench } from "./daemon/run.js";
import { runReal } from "./real/run.js";
import { indexEnded, median, pairedRounds, timed, untilLogged } from "./speed/measure.js";
import { runSpeed } from "./speed/run.js";

const files = Number(process.env.BENCH_FILES ?? 300);
const rounds = Number(process.env.BENCH_ROUNDS ?? 9);
const adapters: Record<string, LanguageAdapter> = {
  tsserver: typescriptAdapter,
  native: typescriptNativeAdapter,
};
const backends = (process.env.BENCH_OVERHEAD_BACKENDS ?? "tsserver,native")
  .split(",")
  .map((b) => b.trim())
  .filter((b) => b in adapters);
/** The target for the bridge: at most 1.15× the raw request, or 5 ms more. */
const targetRatio = 1.15;
const targetExtraMs = 5;

interface Pair {
  label: string;
  raw: () => Promise<unknown>;
  tool: () => Promise<unknown>;
}

interface Measured {
  label: string;
  raw: number[];
  tool: number[];
}

/**
 * Waits (up to two minutes) for the background symbol index build to end, told by its log line.
 * It asks the same server for every file's symbols (opening each), pausing while a tool call runs
 * and for a second after: asking scalpel whether it is done would keep it paused.
 */
const indexingDone = (h: ScalpelHandle) => untilLogged(h, indexEnded, 120_000, 500);

async function main(): Promise<void> {
  const all: unknown[] = [];
  for (const backend of backends) all.push(await overhead(backend));
  if (process.env.BENCH_JSON) await writeFile(process.env.BENCH_JSON, `${JSON.stringify(all, null, 2)}\n`);
}

async function overhead(backend: string): Promise<unknown> {
  const adapter = adapters[backend]!;
  const dir = await mkdtemp(join(tmpdir(), "scalpel-bench-"));
  try {
    const fx = await generateLargeFixture(dir, files);
    const site = fx.computeSites[0]!;
    const siteText = (await readFile(join(dir, site.relative_path), "utf8")).split("\n")[site.line - 1]!;
    const occurrence = siteText.slice(0, site.column - 1).split(/\bcompute\b/).length;

    // Floor: the raw requests through the generic client, no tool layer; the files stay open, as
    // an editor would keep them.
    const spec = adapter.spec(dir);
    if ("missing" in spec) throw new Error(spec.missing);
    const t0 = performance.now();
    const session = new LspSession(spec, dir, log.child("bench"));
    session.start();
    const core = await session.sync(join(dir, fx.coreFile));
    const user = await session.sync(join(dir, site.relative_path));
    const refParams = {
      textDocument: { uri: core.uri },
      position: { line: 3, character: 2 },
      context: { includeDeclaration: adapter.referencesWithDeclaration === true },
    };
    await session.request("textDocument/references", refParams);
    const rawCold = performance.now() - t0;

    // Through scalpel, over MCP stdio.
    const t1 = performance.now();
    const h = await startScalpel({ project: dir, env: { SCALPEL_TS_BACKEND: backend } });
    const refArgs = { name_path: "Core/compute", relative_path: fx.coreFile, context_lines: 0 };
    await callOk(h, "find_referencing_symbols", refArgs);
    const toolCold = performance.now() - t1;
    // The symbol index fills in the background after activation, asking the same server for
    // document symbols; measured while it runs, every warm figure would include its requests.
    const indexed = await indexingDone(h);

    const pairs: Pair[] = [
      {
        label: "references ↔ find_referencing_symbols",
        raw: () => session.request("textDocument/references", refParams),
        tool: () => callOk(h, "find_referencing_symbols", refArgs),
      },
      {
        label: "definition ↔ find_declaration",
        raw: () =>
          session.request("textDocument/definition", {
            textDocument: { uri: user.uri },
            position: { line: site.line - 1, character: site.column - 1 },
          }),
        tool: () =>
          callOk(h, "find_declaration", {
            relative_path: site.relative_path,
            line: site.line,
            identifier: "compute",
            occurrence,
          }),
      },
      {
        label: "documentSymbol ↔ get_symbols_overview",
        raw: () => session.request("textDocument/documentSymbol", { textDocument: { uri: core.uri } }),
        tool: () => callOk(h, "get_symbols_overview", { relative_path: fx.coreFile }),
      },
      {
        label: "documentSymbol ↔ find_symbol in one file",
        raw: () => session.request("textDocument/documentSymbol", { textDocument: { uri: core.uri } }),
        tool: () =>
          callOk(h, "find_symbol", { name_path_pattern: "Core", relative_path: fx.coreFile, depth: 1 }),
      },
    ];
    const measured: Measured[] = pairs.map((p) => ({ label: p.label, raw: [], tool: [] }));
    // The unmeasured round warms each path (first documentSymbol, first definition).
    await pairedRounds(pairs, rounds, {
      first: async (p) => {
        await p.raw();
        await p.tool();
      },
      raw: async (p, k) => {
        measured[k]!.raw.push(await timed(p.raw));
      },
      tool: async (p, k) => {
        measured[k]!.tool.push(await timed(p.tool));
      },
    });
    await h.close();
    await session.shutdown();

    const ms = (x: number) => `${x.toFixed(1)} ms`;
    console.log(
      `scalpel bench (${backend}) — ${fx.files.length} files, ${fx.computeSites.length} reference sites, ${rounds} paired rounds, medians` +
        " (shared machine: compare ratios, not absolutes)",
    );
    console.log(`cold: start → first complete references: raw LSP ${ms(rawCold)}, scalpel ${ms(toolCold)}`);
    if (!indexed)
      console.log("(the symbol index build did not say it ended: warm figures may include its requests)");
    const header = ["raw LSP ↔ scalpel", "raw", "scalpel", "ratio", "extra", "target"];
    const rows = measured.map((m) => {
      const raw = median(m.raw);
      const tool = median(m.tool);
      const met = tool <= raw * targetRatio || tool - raw <= targetExtraMs;
      return [
        m.label,
        ms(raw),
        ms(tool),
        `${(tool / raw).toFixed(2)}×`,
        `+${ms(tool - raw)}`,
        met ? "met" : "missed",
      ];
    });
    const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
    for (const r of [header, ...rows]) console.log(r.map((cell, c) => cell.padEnd(widths[c]!)).join("  "));
    return {
      backend,
      files: fx.files.length,
      sites: fx.computeSites.length,
      rounds,
      cold: { raw: rawCold, scalpel: toolCold },
      warm: measured.map((m) => ({ label: m.label, raw: m.raw, scalpel: m.tool })),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

main()
  .then(() => (process.env.BENCH_SIZES === "none" ? undefined : runSpeed()))
  .then(() => (process.env.BENCH_REAL === "none" ? undefined : runReal()))
  .then(() => (process.env.BENCH_DAEMON === "none" ? undefined : runDaemonBench()))
  .catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
