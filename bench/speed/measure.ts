// Small measuring helpers for the speed bench: timings, their median and spread, and peak memory
// read from /proc (Linux only; elsewhere the memory columns stay empty).
import { setTimeout } from "node:timers/promises";
import { residentBytes } from "../../src/process/resident.js";
import { descendants } from "../../test/helpers/mcp.js";

/** The log line that ends the background symbol index build (ready, or stopped). */
export const indexEnded = /symbol index (ready|build stopped)/;

/**
 * Waits up to `ms` for scalpel's stderr to say what `re` matches, looking every `stepMs`: the
 * benches learn the index build's end from its log line, since asking scalpel would pause the build.
 */
export async function untilLogged(
  h: { readonly stderr: string },
  re: RegExp,
  ms: number,
  stepMs = 200,
): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (re.test(h.stderr)) return true;
    await setTimeout(stepMs);
  }
  return false;
}

/** A duration for the reports: seconds from 1 s, one decimal under 10 ms. */
export const ms = (x: number) =>
  x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${x.toFixed(x < 10 ? 1 : 0)} ms`;

export async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** What paired rounds do with each pair (its index `k` names its series). */
export interface PairSteps<P> {
  /** The unmeasured first call of each path (a symbol's first scan, the first rename). */
  first(p: P): Promise<void>;
  raw(p: P, k: number): Promise<void>;
  tool(p: P, k: number): Promise<void>;
}

/**
 * A raw request beside the scalpel tool that answers it: one unmeasured round, then `rounds`
 * rounds in alternating order (raw first on even rounds, the tool first on odd), so that neither
 * always runs second, after the other has warmed the server's caches.
 */
export async function pairedRounds<P>(
  pairs: readonly P[],
  rounds: number,
  steps: PairSteps<P>,
): Promise<void> {
  for (const p of pairs) await steps.first(p);
  for (let i = 0; i < rounds; i++) {
    for (const [k, p] of pairs.entries()) {
      if (i % 2 === 0) {
        await steps.raw(p, k);
        await steps.tool(p, k);
      } else {
        await steps.tool(p, k);
        await steps.raw(p, k);
      }
    }
  }
}

/** "median (min–max)" in ms, or seconds past 10 s; "—" for no samples. */
export function spread(xs: readonly number[]): string {
  if (xs.length === 0) return "—";
  const f = (x: number) => (x >= 10_000 ? `${(x / 1000).toFixed(1)} s` : `${x.toFixed(x < 10 ? 1 : 0)} ms`);
  if (xs.length === 1) return f(xs[0]!);
  return `${f(median(xs))} (${f(Math.min(...xs))}–${f(Math.max(...xs))})`;
}

/** VmHWM (peak resident set) of one process in MB, undefined when it cannot be read. */
export function peakRssMb(pid: number): number | undefined {
  const bytes = residentBytes(pid, "VmHWM");
  return bytes === undefined ? undefined : bytes / 1024 / 1024;
}

/**
 * The peak RSS of every process under `pid` (the language server and any helpers it spawned),
 * summed: each process's own peak, so the sum can exceed what the tree held at any one moment.
 */
export function treePeakRssMb(pid: number): number | undefined {
  const peaks = descendants(pid)
    .map(peakRssMb)
    .filter((x): x is number => x !== undefined);
  return peaks.length ? peaks.reduce((a, b) => a + b, 0) : undefined;
}

export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? "").length)));
  return [header, ...rows]
    .map((r) => r.map((cell, c) => (cell ?? "").padEnd(widths[c]!)).join("  "))
    .join("\n");
}
