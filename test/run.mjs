// Runs the test files with node's test runner through tsx. Node 20 does not discover `.ts` test
// files by itself and would pass with zero tests, so the list is built here and must not be empty.
// Usage: node test/run.mjs [tier|file ...]   tiers: unit, integration, e2e (default: all three)
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const tiers = ["unit", "integration", "e2e"];

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...collect(full));
    else if (name.endsWith(".test.ts")) out.push(relative(root, full));
  }
  return out;
}

const args = process.argv.slice(2);
const files = [];
for (const arg of args.length > 0 ? args : tiers) {
  if (tiers.includes(arg)) files.push(...collect(join(root, "test", arg)));
  else files.push(arg);
}
if (files.length === 0) {
  console.error("test/run.mjs: no test files found; refusing to pass vacuously");
  process.exit(1);
}
// The user-level folder (registry, trust store): tests never touch the real ~/.scalpel.
const home = process.env.SCALPEL_HOME ?? mkdtempSync(join(tmpdir(), "scalpel-test-home-"));
const result = spawnSync(
  process.execPath,
  // --test-force-exit: a file that leaves a handle open (a server a failed test did not stop)
  // must fail, not hang CI; --test-timeout bounds any single test.
  [
    "--import",
    "tsx",
    "--test",
    "--test-concurrency=1",
    "--test-force-exit",
    "--test-timeout=600000",
    "--test-reporter=spec",
    ...files,
  ],
  { cwd: root, stdio: "inherit", env: { ...process.env, SCALPEL_HOME: home } },
);
if (process.env.SCALPEL_HOME === undefined) rmSync(home, { recursive: true, force: true });
process.exit(result.status ?? 1);
