// Runs the test files with node's test runner through tsx. Node 20 does not discover `.ts` test
// files by itself and would pass with zero tests, so the list is built here and must not be empty.
// Usage: node test/run.mjs [tier|file ...]   tiers: unit, integration, e2e (default: all three), and
// e2e-native (the TypeScript e2e files on TypeScript 7's native server; part of the e2e tier too)
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

// The TypeScript e2e files that run a second time on TypeScript 7's native server
// (SCALPEL_TS_BACKEND=native), as the `e2e-native` tier and after every run of the e2e tier. Left
// out: progress.test.ts (asserts tsserver's own "Initializing" progress; the native server reports
// none) and the files that test no TypeScript behaviour. ts-native*.test.ts pick their backend.
const nativeSuite = [
  "compact-references",
  "declarations",
  "delete",
  "diagnostics",
  "edit-budgets",
  "edits",
  "fresh-diagnostics",
  "lifecycle",
  "parallel-edits",
  "project-diagnostics",
  "projects",
  "references",
  "rename",
  "rename-summary",
  "symbols",
  "test-callbacks",
  "undo-restart",
  "whole-delta",
].map((name) => `test/e2e/${name}.test.ts`);

const args = process.argv.slice(2);
const files = [];
const native = [];
for (const arg of args.length > 0 ? args : tiers) {
  if (tiers.includes(arg)) files.push(...collect(join(root, "test", arg)));
  else if (arg !== "e2e-native") files.push(arg);
  if (arg === "e2e" || arg === "e2e-native") native.push(...nativeSuite);
}
if (files.length + native.length === 0) {
  console.error("test/run.mjs: no test files found; refusing to pass vacuously");
  process.exit(1);
}
// The user-level folder (registry, trust store): tests never touch the real ~/.scalpel.
const home = process.env.SCALPEL_HOME ?? mkdtempSync(join(tmpdir(), "scalpel-test-home-"));
const run = (list, env) =>
  spawnSync(
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
      ...list,
    ],
    { cwd: root, stdio: "inherit", env: { ...process.env, SCALPEL_HOME: home, ...env } },
  ).status ?? 1;
let status = files.length > 0 ? run(files, {}) : 0;
if (native.length > 0) {
  console.log(`\n# TypeScript e2e files again on the native backend (SCALPEL_TS_BACKEND=native)\n`);
  status = run(native, { SCALPEL_TS_BACKEND: "native" }) || status;
}
if (process.env.SCALPEL_HOME === undefined) rmSync(home, { recursive: true, force: true });
process.exit(status);
