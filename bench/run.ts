// npm run bench: medians and ratios measured side by side in one run, on a generated project.
// Compares scalpel's tools (over MCP stdio, as an agent sees them) with the raw language-server
// request underneath (the floor), so the bridge's own overhead shows as a ratio, not an absolute.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { typescriptAdapter } from "../language-servers/typescript.js";
import { log } from "../src/log.js";
import { LspSession } from "../src/lsp/session.js";
import { generateLargeFixture } from "../test/helpers/fixtures.js";
import { callOk, startScalpel } from "../test/helpers/mcp.js";

const files = Number(process.env.BENCH_FILES ?? 300);
const rounds = Number(process.env.BENCH_ROUNDS ?? 7);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "scalpel-bench-"));
  try {
    const fx = await generateLargeFixture(dir, files);
    const rows: Array<[string, string]> = [];

    // Floor: the raw request through the generic client, no tool layer.
    const spec = typescriptAdapter.spec(dir);
    if ("missing" in spec) throw new Error(spec.missing);
    const t0 = performance.now();
    const session = new LspSession(spec, dir, log.child("bench"));
    session.start();
    const doc = await session.sync(join(dir, fx.coreFile));
    const position = { line: 3, character: 2 };
    const refParams = { textDocument: { uri: doc.uri }, position, context: { includeDeclaration: false } };
    await session.request("textDocument/references", refParams);
    const rawCold = performance.now() - t0;
    const rawRefs: number[] = [];
    const rawSymbols: number[] = [];
    for (let i = 0; i < rounds; i++) {
      rawRefs.push(await timed(() => session.request("textDocument/references", refParams)));
      rawSymbols.push(
        await timed(() => session.request("textDocument/documentSymbol", { textDocument: { uri: doc.uri } })),
      );
    }
    await session.shutdown();

    // Through scalpel, over MCP stdio.
    const t1 = performance.now();
    const h = await startScalpel({ project: dir });
    const refArgs = { name_path: "Core/compute", relative_path: fx.coreFile, context_lines: 0 };
    await callOk(h, "find_referencing_symbols", refArgs);
    const toolCold = performance.now() - t1;
    const toolRefs: number[] = [];
    const toolSymbols: number[] = [];
    for (let i = 0; i < rounds; i++) {
      toolRefs.push(await timed(() => callOk(h, "find_referencing_symbols", refArgs)));
      toolSymbols.push(
        await timed(() =>
          callOk(h, "find_symbol", { name_path_pattern: "Core", relative_path: fx.coreFile, depth: 1 }),
        ),
      );
    }
    await h.close();

    const ms = (x: number) => `${x.toFixed(1)} ms`;
    rows.push(["files in project", String(fx.files.length)]);
    rows.push(["reference sites", String(fx.computeSites.length)]);
    rows.push(["cold: start → first complete references (raw LSP)", ms(rawCold)]);
    rows.push(["cold: start → first find_referencing_symbols (scalpel)", ms(toolCold)]);
    rows.push(["warm references, median (raw LSP)", ms(median(rawRefs))]);
    rows.push(["warm find_referencing_symbols, median (scalpel)", ms(median(toolRefs))]);
    rows.push(["  ratio scalpel / raw", `${(median(toolRefs) / median(rawRefs)).toFixed(2)}×`]);
    rows.push(["warm documentSymbol, median (raw LSP)", ms(median(rawSymbols))]);
    rows.push(["warm find_symbol in one file, median (scalpel)", ms(median(toolSymbols))]);
    rows.push(["  ratio scalpel / raw", `${(median(toolSymbols) / median(rawSymbols)).toFixed(2)}×`]);
    const width = Math.max(...rows.map((r) => r[0].length));
    console.log(
      `scalpel bench — ${rounds} rounds each, medians (shared machine: compare ratios, not absolutes)`,
    );
    for (const [k, v] of rows) console.log(`${k.padEnd(width)}  ${v}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
