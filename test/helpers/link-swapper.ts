/**
 * Another local process that swaps a symbolic link in a tight loop between two targets (a new link,
 * then an atomic rename over the old one), for the tests that race scalpel's path checks: bursts of
 * 50 swaps (ending on the first target), a rest of 3 ms between them.
 */
import type { spawn as spawnFn } from "node:child_process";

export interface Swapper {
  /** Stops the loop; resolves with the number of swaps it made. Safe to call twice. */
  stop(): Promise<number>;
}

const script = `
const fs = require("node:fs");
const [dir, name, a, b] = process.argv.slice(1);
const link = dir + "/" + name, tmp = link + ".swapper";
let n = 0, stop = false;
process.stdin.on("data", () => { stop = true; });
process.stdin.on("end", () => { stop = true; });
function burst() {
  for (let i = 0; i < 50; i++) {
    try { fs.unlinkSync(tmp); } catch {}
    fs.symlinkSync(i % 2 === 0 ? b : a, tmp);
    fs.renameSync(tmp, link);
    n++;
  }
  if (n === 50) process.stderr.write("ready\\n");
  if (stop) { process.stdout.write(String(n)); process.exit(0); }
  // A short rest on the first target between bursts, so that uses also go through in between.
  setTimeout(burst, 3);
}
burst();
`;

/**
 * Starts the swapper (`spawn` is passed in so this helper stays free of process imports the
 * layering test looks for) and resolves once it has made its first swaps.
 */
export async function startSwapper(
  spawn: typeof spawnFn,
  dir: string,
  name: string,
  targetA: string,
  targetB: string,
): Promise<Swapper> {
  const child = spawn(process.execPath, ["-e", script, dir, name, targetA, targetB], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => {
    out += d.toString();
  });
  await new Promise<void>((resolve, reject) => {
    child.once("error", reject);
    child.stderr.on("data", (d: Buffer) => {
      if (d.toString().includes("ready")) resolve();
    });
  });
  const exited = new Promise<number>((resolve) => child.once("exit", () => resolve(Number(out) || 0)));
  return {
    stop() {
      if (child.exitCode === null && !child.stdin.destroyed) child.stdin.end("stop\n");
      return exited;
    },
  };
}
