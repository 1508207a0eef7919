/**
 * tsconfig reads with TypeScript's config API (tsconfig-read.ts) done in a short-lived child
 * process (tsconfig-reader-main.ts) instead of scalpel's own: the compiler's module is ~9 MB of
 * source that V8 keeps as a string beside its code, and loading it for the native backend's first
 * references raised scalpel's resident set by ~22 MB (20k-file project: 142 → 164 MB at the
 * call's start) for the rest of the process — part of the 320 MB peak issue #22 had to bring
 * under 200 MB. The child answers with the same code, so the same file set; it loads the compiler
 * from the build's code cache (typescript-code-cache.ts) and exits.
 *
 * Started afresh for a read, it costs the node start and the compiler's load (0.22–0.39 s on the
 * 2-core machine under load, 20k- and 5k-file projects; 88–108 MB peak in the child, gone after),
 * which on a cold first references call came after the project's answer. `prewarmTsconfigReader`
 * (the native backend's warm-up, while its server loads the project) starts one that loads the
 * compiler and waits for one request: the first read then costs the read alone.
 *
 * Without the built reader (sources run by tsx, no `npm run build`), the read is done in-process.
 */
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { log } from "../src/core/log.js";
import { packageRoot } from "../src/core/version.js";
import { runBounded, runBoundedSync } from "../src/process/bounded-command.js";
import { type ServerProcess, spawnServer, terminateGroup } from "../src/process/spawn.js";
import { compilerOutDirs, outDirsWithoutCompiler, tsconfigFiles } from "./tsconfig-read.js";

const reader = join(packageRoot, "dist", "src", "tsconfig-reader.cjs");
const logger = log.child("tsconfig");
/** A read past this is given up (the 20k project's 20,000-file listing: 0.25–0.39 s, child start included). */
const timeoutMs = 30_000;

const launch = (op: string, config: string, root: string) => ({
  command: process.execPath,
  args: [reader, op, config, root],
});

/** The child's answer: a JSON array of strings, or undefined. */
function answer(stdout: string | null): string[] | undefined {
  if (stdout === null) return undefined;
  try {
    const v: unknown = JSON.parse(stdout);
    return Array.isArray(v) && v.every((x) => typeof x === "string") ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The reader started ahead, until a read takes it. It exits by itself when unused (reader's `serve`). */
let warm: ServerProcess | undefined;

/** Starts a reader that loads the compiler now, for the next read; one at a time. */
export function prewarmTsconfigReader(): void {
  if ((warm && !warm.hasExited) || !existsSync(reader)) return;
  const proc = spawnServer({ command: process.execPath, args: [reader, "serve"] }, dirname(reader), logger);
  // Waiting for a request must not keep scalpel's process alive.
  proc.child.unref();
  for (const s of [proc.child.stdin, proc.child.stdout, proc.child.stderr])
    (s as unknown as { unref?: () => void } | null)?.unref?.();
  warm = proc;
  // Gone unused (its idle time, stdin's end): its group is reaped and no longer tracked.
  void proc.exited.then(() => {
    if (warm === proc) warm = undefined;
    if (proc.pid !== undefined) void terminateGroup(proc.pid, 0);
  });
}

/** The warm reader's answer to one request, or null when it fails or exits first. */
async function askWarm(
  proc: ServerProcess,
  op: string,
  config: string,
  root: string,
): Promise<string | null> {
  let out = "";
  proc.child.stdout?.setEncoding("utf8");
  proc.child.stdout?.on("data", (chunk: string) => {
    out += chunk;
  });
  const closed = new Promise<void>((resolve) => {
    if (!proc.child.stdout) resolve();
    proc.child.stdout?.once("close", () => resolve());
  });
  proc.child.stdin?.write(`${JSON.stringify({ op, config, root })}\n`);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  const exit = await Promise.race([proc.exited, timedOut]);
  clearTimeout(timer);
  // "exit" can come before the last stdout chunk: its close is waited for, briefly.
  if (exit !== "timeout") await Promise.race([closed, sleep(2_000)]);
  if (proc.pid !== undefined) await terminateGroup(proc.pid, 500);
  return exit !== "timeout" && exit.code === 0 ? out : null;
}

/**
 * tsconfigFiles (tsconfig-read.ts) read in a child process — the warm one when it is there — []
 * when that cannot be told, the child's failure included (every doubt leaves files out).
 */
export async function tsconfigFilesApart(config: string, root: string): Promise<string[]> {
  if (!existsSync(reader)) return tsconfigFiles(config, root);
  const taken = warm && !warm.hasExited ? warm : undefined;
  warm = undefined;
  if (taken) {
    const files = answer(await askWarm(taken, "files", config, root));
    if (files) return files;
    logger.debug("the warm tsconfig reader failed; reading with a new one");
  }
  const run = await runBounded(launch("files", config, root), root, { timeoutMs }, logger);
  const files = run.exitCode === 0 ? answer(run.stdout) : undefined;
  if (!files) logger.debug(`tsconfig read failed (exit ${run.exitCode}): ${run.stderr.slice(0, 300)}`);
  return files ?? [];
}

/**
 * tsconfigOutDirs (tsconfig-read.ts), the compiler's part read in a child process, synchronously
 * (the ignore rules ask synchronously): [] when it cannot be told.
 */
export function tsconfigOutDirsApart(text: string, config: string, root: string): string[] {
  const known = outDirsWithoutCompiler(text, config, root);
  if (known) return known;
  if (!existsSync(reader)) return compilerOutDirs(config, root);
  const dirs = answer(runBoundedSync(launch("out-dirs", config, root), root, timeoutMs));
  if (!dirs) logger.debug("tsconfig output folders could not be read");
  return dirs ?? [];
}
