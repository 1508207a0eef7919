/**
 * tsconfig reads with TypeScript's config API (tsconfig-read.ts) done in a short-lived child
 * process (tsconfig-reader-main.ts) instead of scalpel's own: the compiler's module is ~9 MB of
 * source that V8 keeps as a string beside its code, and loading it for the native backend's first
 * references raised scalpel's resident set by ~22 MB (20k-file project: 142 → 164 MB at the
 * call's start) for the rest of the process — part of the 320 MB peak issue #22 had to bring
 * under 200 MB. The child answers with the same code, so the same file set; it loads the compiler
 * from the build's code cache (typescript-code-cache.ts) and exits.
 *
 * Without the built reader (sources run by tsx, no `npm run build`), the read is done in-process.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { log } from "../src/core/log.js";
import { packageRoot } from "../src/core/version.js";
import { runBounded, runBoundedSync } from "../src/process/bounded-command.js";
import { compilerOutDirs, outDirsWithoutCompiler, tsconfigFiles } from "./tsconfig-read.js";

const reader = join(packageRoot, "dist", "src", "tsconfig-reader.cjs");
const logger = log.child("tsconfig");
/** A read past this is given up (a listing of 100,000 files took ~1 s on a quiet machine). */
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

/**
 * tsconfigFiles (tsconfig-read.ts) read in a child process: [] when that cannot be told, the
 * child's failure included (every doubt leaves files out).
 */
export async function tsconfigFilesApart(config: string, root: string): Promise<string[]> {
  if (!existsSync(reader)) return tsconfigFiles(config, root);
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
  const known = outDirsWithoutCompiler(text);
  if (known) return known;
  if (!existsSync(reader)) return compilerOutDirs(config, root);
  const dirs = answer(runBoundedSync(launch("out-dirs", config, root), root, timeoutMs));
  if (!dirs) logger.debug("tsconfig output folders could not be read");
  return dirs ?? [];
}
