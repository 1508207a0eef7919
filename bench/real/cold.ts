// Cold rounds of the real-repository tier: spawn → the first complete references, the raw server
// and scalpel alternately (which goes first alternates too), each round with new processes and,
// for scalpel, a new $SCALPEL_HOME (no symbol index, nothing remembered). One sample was too few on
// this shared machine: a cold start is seconds of CPU on 2 cores. Each scalpel round also says when
// its process asked the server to initialize (ms after its own start, from SCALPEL_LSP_TRACE) and
// how long the server took to answer: what scalpel adds before and after the server's own work.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Location } from "vscode-languageserver-protocol";
import { log } from "../../src/core/log.js";
import type { LanguageAdapter } from "../../src/languages/adapter.js";
import { LspSession } from "../../src/lsp/session.js";
import { callOk, cliPath, startScalpel } from "../../test/helpers/mcp.js";
import { median, ms } from "../speed/measure.js";

export interface ColdRound {
  raw: number;
  scalpel: number;
  complete: boolean;
  /** ms after scalpel's process start when it sent the server `initialize`. */
  serverAskedAt?: number;
  /** The server's time to answer `initialize`. */
  initializeMs?: number;
}

export interface ColdTarget {
  dir: string;
  /** Where temporary homes and traces go (removed by the caller). */
  scratch: string;
  backend: string;
  adapter: LanguageAdapter;
  symbol: { relative_path: string; name_path: string };
  position: { line: number; character: number };
}

async function rawCold(t: ColdTarget): Promise<{ ms: number; locations: Location[] }> {
  const spec = t.adapter.spec(t.dir);
  if ("missing" in spec) throw new Error(spec.missing);
  const t0 = performance.now();
  const session = new LspSession(spec, t.dir, log.child("bench-raw"));
  session.start();
  const doc = await session.sync(join(t.dir, t.symbol.relative_path));
  const locations = await session.request<Location[] | null>("textDocument/references", {
    textDocument: { uri: doc.uri },
    position: t.position,
    context: { includeDeclaration: t.adapter.referencesWithDeclaration === true },
  });
  const took = performance.now() - t0;
  await session.shutdown();
  return { ms: took, locations: locations ?? [] };
}

async function scalpelCold(t: ColdTarget, round: number): Promise<Omit<ColdRound, "raw">> {
  const home = await mkdtemp(join(t.scratch, `home-${t.backend}-${round}-`));
  const trace = join(home, "trace.jsonl");
  writeFileSync(trace, "");
  const t0 = performance.now();
  const h = await startScalpel({
    project: t.dir,
    env: { SCALPEL_HOME: home, SCALPEL_TS_BACKEND: t.backend, SCALPEL_LSP_TRACE: trace },
  });
  try {
    const answer = await callOk<{ complete: boolean }>(h, "find_referencing_symbols", { ...t.symbol });
    const took = performance.now() - t0;
    const init = readFileSync(trace, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { at: number; method: string; ms?: number })
      .find((l) => l.method === "initialize");
    return {
      scalpel: took,
      complete: answer.complete,
      ...(init?.ms !== undefined ? { serverAskedAt: init.at - init.ms, initializeMs: init.ms } : {}),
    };
  } finally {
    await h.close();
  }
}

/** `rounds` cold pairs; the first raw answer too (the warm rounds look for a use in another file). */
export async function coldRounds(
  t: ColdTarget,
  rounds: number,
): Promise<{ rounds: ColdRound[]; firstRaw: Location[] }> {
  const out: ColdRound[] = [];
  let firstRaw: Location[] = [];
  for (let k = 0; k < rounds; k++) {
    let raw = 0;
    let tool: Omit<ColdRound, "raw"> | undefined;
    const doRaw = async () => {
      const r = await rawCold(t);
      raw = r.ms;
      if (k === 0) firstRaw = r.locations;
    };
    if (k % 2 === 0) {
      await doRaw();
      tool = await scalpelCold(t, k);
    } else {
      tool = await scalpelCold(t, k);
      await doRaw();
    }
    out.push({ raw, ...tool });
  }
  return { rounds: out, firstRaw };
}

/** One line for the report: medians, the ratio, and where scalpel's extra time sits. */
export function coldLine(rounds: readonly ColdRound[], bound: number): string {
  const raw = median(rounds.map((r) => r.raw));
  const tool = median(rounds.map((r) => r.scalpel));
  const ratio = tool / raw;
  const asked = rounds.flatMap((r) => (r.serverAskedAt === undefined ? [] : [r.serverAskedAt]));
  const init = rounds.flatMap((r) => (r.initializeMs === undefined ? [] : [r.initializeMs]));
  const incomplete = rounds.filter((r) => !r.complete).length;
  return (
    `cold, spawn → first complete references (median of ${rounds.length}): raw ${ms(raw)}, scalpel ${ms(tool)} ` +
    `(${ratio.toFixed(2)}×, bound ${bound}×: ${ratio <= bound ? "met" : "missed"}); scalpel asked the server ` +
    `${asked.length ? ms(median(asked)) : "?"} after its start, initialize took ${init.length ? ms(median(init)) : "?"}` +
    (incomplete ? ` — ${incomplete} answer(s) incomplete` : "")
  );
}

/**
 * The default path (the per-user daemon): the first session's spawn → first complete references
 * (it starts the daemon), then `rounds` later sessions, each spawned, asked and closed while the
 * daemon keeps the project warm: what every session after a machine's first pays. A new home, so a
 * new daemon, stopped at the end.
 */
export async function daemonRounds(
  t: ColdTarget,
  rounds: number,
): Promise<{ first: number; later: number[] }> {
  // A short folder: the daemon's socket path must fit a Unix socket's 107 bytes (src/daemon/paths.ts),
  // and under the scratch folder it did not: every session fell back to in-process, saying so.
  const home = await mkdtemp(join(tmpdir(), "sd-"));
  const env = { SCALPEL_HOME: home, SCALPEL_TS_BACKEND: t.backend, SCALPEL_KEEP_WARM: "600" };
  const session = async () => {
    const t0 = performance.now();
    const h = await startScalpel({ project: t.dir, env, via: "default" });
    try {
      const answer = await callOk<{ complete: boolean }>(h, "find_referencing_symbols", { ...t.symbol });
      const took = performance.now() - t0;
      if (!answer.complete) throw new Error("the daemon's answer was not complete");
      if (/serving this session in-process/.test(h.stderr))
        throw new Error(`the session was not served by the daemon:\n${h.stderr.slice(-2000)}`);
      return took;
    } finally {
      await h.close();
    }
  };
  try {
    const first = await session();
    const later: number[] = [];
    for (let k = 0; k < rounds; k++) later.push(await session());
    return { first, later };
  } finally {
    spawnSync(process.execPath, [cliPath, "daemon", "stop"], {
      env: { ...process.env, ...env },
      stdio: "ignore",
    });
    await rm(home, { recursive: true, force: true });
  }
}

export function daemonLine(d: { first: number; later: number[] }, raw: number): string {
  const later = median(d.later);
  return (
    `through the daemon (the default): first session ${ms(d.first)} (it starts the daemon); a later ` +
    `session, spawn → first complete references ${ms(later)} (median of ${d.later.length}; ${(later / raw).toFixed(2)}× the raw cold)`
  );
}
