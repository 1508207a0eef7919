// Runs the test files with node's test runner, several files at once. Node 20 does not discover
// `.ts` test files by itself and would pass with zero tests, so the list is built here and must not
// be empty. The files run compiled (scripts/compile-tests.mjs: types stripped, one module for each,
// under .cache/test-js/), on node alone: tsx cost each of ~150 processes 0.2 s of CPU to load.
// SCALPEL_TEST_TSX=1 runs them from the sources through tsx instead.
//
// Usage: node test/run.mjs [--checks] [tier|file ...]   tiers: unit, integration, e2e (default: all
// three); --checks adds biome and the type check as jobs (what `npm test` runs).
//
// Most of a test file's time is spent waiting on a language server (its project load, a settle
// window, a compiler run), so files run as concurrent jobs (SCALPEL_TEST_JOBS, default 4 on this
// 2-core machine kind), each in its own node process with its own SCALPEL_HOME and temp folders.
// A file declares in its own header what the runner needs to know of it:
//   // @backends tsserver native   it runs once per TypeScript backend (SCALPEL_TS_BACKEND)
//   // @backends tsserver native:full   the same, the native pass in the full tier only
//   // @serial <why>               it runs after the jobs that start servers, one at a time (timing-sensitive)
//   // @alone <why>                it needs a process of its own (files share one otherwise, see below)
//   // @via daemon[:full]          it runs a second time, in a process of its own, through the default
//                                  path: `scalpel mcp` relayed to the per-user daemon (test/helpers/mcp.ts)
// Every other scalpel a test starts serves in-process (SCALPEL_DAEMON=0 in each job's environment):
// isolated, and its servers under its own pid.
// A job's output is printed whole when it ends; the last line counts every job's tests.
import { spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { compileTests } from "../scripts/compile-tests.mjs";

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

/** SCALPEL_TEST_TIER=full (`npm run test:full`, CI): the longer runs, see test/helpers/tier.ts. */
const fullTier = process.env.SCALPEL_TEST_TIER === "full";

/**
 * The header tags of a test file (the lines before its first import). A backend written
 * `native:full` runs in the full tier only: the quick loop keeps the native pass of the suites
 * that reach its own code paths, CI runs it on every suite.
 */
function tagsOf(file) {
  const head = readFileSync(join(root, file), "utf8").split("\n").slice(0, 40).join("\n");
  const backends = /^\/\/ @backends (.+)$/m
    .exec(head)?.[1]
    .trim()
    .split(/[\s,]+/)
    .filter((b) => fullTier || !b.endsWith(":full"))
    .map((b) => b.replace(/:full$/, "")) ?? [undefined];
  const via = /^\/\/ @via daemon(:full)?\b/m.exec(head);
  return {
    backends,
    serial: /^\/\/ @serial\b/m.test(head),
    alone: /^\/\/ @alone\b/m.test(head),
    // `@via daemon:full`: the run through the daemon in the full tier (CI) only.
    viaDaemon: via !== null && (via[1] === undefined || fullTier),
  };
}

/**
 * The type check: TypeScript 5.9's tsc in the full tier (what CI runs); in the quick loop the
 * native TypeScript 7 compiler when it is installed, the same checker ported (measured on this
 * repository: 2.4 s and 3.4 s of CPU against 37 s and 18 s, the same verdict).
 */
function typeCheck() {
  const native = join(
    root,
    "node_modules",
    `@typescript/typescript-${process.platform}-${process.arch}`,
    "lib",
    "tsc",
  );
  if (!fullTier && existsSync(native))
    return { file: "tsc -p tsconfig.test.json (native)", command: [native, "-p", "tsconfig.test.json"] };
  return {
    file: "tsc -p tsconfig.test.json",
    command: [
      process.execPath,
      join(root, "node_modules", "typescript", "bin", "tsc"),
      "-p",
      "tsconfig.test.json",
    ],
  };
}

// --checks: the linter and the type check run as jobs beside the tests (each is a compiler's worth
// of CPU; run first, one after the other, they held the test files back by about a minute).
const checks = process.argv.includes("--checks")
  ? [
      { file: "biome check .", command: [join(root, "node_modules", ".bin", "biome"), "check", "."] },
      typeCheck(),
    ]
  : [];
const args = process.argv.slice(2).filter((a) => a !== "--checks");
const files = [];
for (const arg of args.length > 0 ? args : tiers) {
  if (tiers.includes(arg)) files.push(...collect(join(root, "test", arg)));
  else files.push(arg);
}
if (files.length === 0) {
  console.error("test/run.mjs: no test files found; refusing to pass vacuously");
  process.exit(1);
}

const width = Number(process.env.SCALPEL_TEST_JOBS ?? Math.max(2, cpus().length * 2));
const jobs = [...checks];
// Files run several to a process: each alone paid node's start, the loading of the modules it
// imports and the compiling of the output schemas its client validates (0.3–1 s of CPU a file) —
// for unit tests that take milliseconds, for e2e files that mostly wait on their servers. A process
// then shares its module graph and the tests' default SCALPEL_HOME (test/helpers/mcp.ts), so a file
// that changes what every module sees (a top-level hook, an environment variable a cached probe
// reads) or that reads the home or the machine's processes says `@alone` and keeps its own. A group
// runs its files one after another; the lanes stay as many.
const unitGroup = [];
const e2eGroups = new Map(); // backend → files
for (const file of files) {
  const { backends, serial, alone, viaDaemon } = tagsOf(file);
  // Once more through the daemon, with the file's first backend: alone, its daemon its own.
  if (viaDaemon)
    jobs.push({ file: `${file} via daemon`, members: [file], backend: backends[0], serial, via: "daemon" });
  for (const backend of backends) {
    if (alone || serial) jobs.push({ file, backend, serial });
    else if (/^test\/(unit|integration)\//.test(file) && !backend) unitGroup.push(file);
    else if (file.startsWith("test/e2e/")) e2eGroups.set(backend, [...(e2eGroups.get(backend) ?? []), file]);
    else jobs.push({ file, backend, serial });
  }
}
const groupCount = Math.min(unitGroup.length, width);
for (let g = 0; g < groupCount; g++) {
  const members = unitGroup.filter((_, i) => i % groupCount === g);
  jobs.push({
    file: `test/unit+integration (${members.length} files, group ${g + 1} of ${groupCount})`,
    members,
    serial: false,
  });
}
/** e2e files per process (SCALPEL_TEST_E2E_GROUP): the biggest files spread over the groups first. */
const perE2eGroup = Number(process.env.SCALPEL_TEST_E2E_GROUP ?? 3);
for (const [backend, list] of e2eGroups) {
  const bySize = [...list].sort((a, b) => statSync(join(root, b)).size - statSync(join(root, a)).size);
  const groups = Array.from({ length: Math.ceil(list.length / perE2eGroup) }, () => ({ files: [], size: 0 }));
  for (const file of bySize) {
    const lightest = groups.reduce((a, b) => (b.size < a.size ? b : a));
    lightest.files.push(file);
    lightest.size += statSync(join(root, file)).size;
  }
  for (const g of groups) {
    const names = g.files.map((f) => f.replace(/^test\/e2e\/|\.test\.ts$/g, ""));
    jobs.push({
      file: g.files.length === 1 ? g.files[0] : `test/e2e/{${names.join(",")}}`,
      ...(g.files.length > 1 ? { members: g.files } : {}),
      backend,
      serial: false,
    });
  }
}
// SCALPEL_TEST_LIST=1: print the jobs (what runs in which process) and run none.
if (process.env.SCALPEL_TEST_LIST === "1") {
  for (const j of jobs)
    console.log(`${j.file}${j.backend ? ` [${j.backend}]` : ""}${j.serial ? " (serial)" : ""}`);
  process.exit(0);
}
/** A file still running after this long is killed and fails: CI must get a verdict, not hang. */
const jobTimeoutS = Number(process.env.SCALPEL_TEST_JOB_TIMEOUT ?? 900);

/** A new cpuacct cgroup for one job (cgroup v1, as root), or undefined where none can be made. */
const cgroupBase = "/sys/fs/cgroup/cpuacct";
let cgroupCount = 0;
function jobCgroup() {
  const dir = join(cgroupBase, `scalpel-test-${process.pid}-${++cgroupCount}`);
  try {
    mkdirSync(dir);
    return dir;
  } catch {
    return undefined;
  }
}
/** The CPU seconds a job's cgroup used; the cgroup is removed (its processes are gone by now). */
function cgroupCpu(dir) {
  const seconds = Number(readFileSync(join(dir, "cpuacct.usage"), "utf8")) / 1e9;
  try {
    rmdirSync(dir);
  } catch {}
  return seconds;
}

/** One file in its own node test process; resolves with its status, output and counts. */
function runJob(job) {
  const home = mkdtempSync(join(tmpdir(), "scalpel-test-home-"));
  const started = Date.now();
  return new Promise((resolve) => {
    // SCALPEL_TEST_CPU=1: each job's CPU, to see which files cost the machine's CPU (the wall clock
    // of concurrent jobs hides it). In a cpuacct cgroup of its own where the machine lets us make
    // one: that counts every process the job starts, its language servers included, which
    // /usr/bin/time misses (it counts only the children that were waited for).
    const cgroup = process.env.SCALPEL_TEST_CPU === "1" ? jobCgroup() : undefined;
    const cpuFile = process.env.SCALPEL_TEST_CPU === "1" && !cgroup ? join(home, "cpu") : undefined;
    const [command, ...commandArgs] = job.command ?? [process.execPath];
    const launcher = cgroup
      ? ["/bin/sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', cgroup]
      : cpuFile
        ? ["/usr/bin/time", "-o", cpuFile, "-f", "%U %S"]
        : [];
    const child = spawn(
      launcher[0] ?? command,
      // The file runs as the test process itself, not under `--test`: that mode adds a parent
      // process loading tsx too (0.5 s of CPU a file, 161 files). --test-force-exit: a file that
      // leaves a handle open (a server a failed test did not stop) ends anyway; the job's own
      // timeout below bounds a file that hangs (--test-timeout applies only under `--test`).
      [
        ...(launcher.length > 0 ? [...launcher.slice(1), command] : []),
        ...(job.command
          ? commandArgs
          : [...runFrom, "--test-force-exit", "--test-reporter=spec", entryOf(job)]),
      ],
      {
        cwd: root,
        stdio: ["ignore", "pipe", "pipe"],
        env: {
          ...process.env,
          SCALPEL_HOME: home,
          ...(job.via ? { SCALPEL_TEST_VIA: job.via } : { SCALPEL_DAEMON: "0" }),
          ...(job.backend ? { SCALPEL_TS_BACKEND: job.backend } : {}),
        },
      },
    );
    let out = "";
    const timer = setTimeout(() => {
      out += `\n# ${job.file}: still running after ${jobTimeoutS} s (SCALPEL_TEST_JOB_TIMEOUT): killed\n`;
      child.kill("SIGKILL");
    }, jobTimeoutS * 1000);
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.stderr.on("data", (d) => {
      out += d;
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      let cpu = 0;
      if (cgroup) cpu = cgroupCpu(cgroup);
      else if (cpuFile) {
        const [user, sys] = readFileSync(cpuFile, "utf8").trim().split("\n").pop().split(" ").map(Number);
        cpu = (user ?? 0) + (sys ?? 0);
      }
      rmSync(home, { recursive: true, force: true });
      const count = (name) => Number(new RegExp(`^ℹ ${name} (\\d+)$`, "m").exec(out)?.[1] ?? 0);
      resolve({
        ...job,
        status: code ?? (signal ? 1 : 0),
        out,
        ms: Date.now() - started,
        cpu,
        tests: count("tests"),
        pass: count("pass"),
        fail: count("fail") + count("cancelled"),
        // A suite skipped whole (its server is missing) counts no test: it counts as skipped, and a
        // file with neither tests nor suites fails (it ran nothing).
        skipped:
          count("skipped") + count("todo") + (count("tests") === 0 ? (out.match(/^﹣ /gm) ?? []).length : 0),
        suites: count("suites"),
      });
    });
  });
}

/** The spec reporter's "failing tests" section of one job (its errors), at most 40 lines. */
function failureDetails(out) {
  const lines = out.split("\n");
  const from = lines.findIndex((l) => /failing tests:/.test(l));
  const section = from >= 0 ? lines.slice(from + 1) : lines.slice(-20);
  const kept = section.filter((l) => l.trim() !== "" && !/\(?node:(internal|async_hooks)/.test(l));
  return kept.length > 40
    ? [...kept.slice(0, 40), `... ${kept.length - 40} more lines in its output above`]
    : kept;
}

const done = [];
function report(r) {
  done.push(r);
  const name = `${r.file}${r.backend ? ` [${r.backend}]` : ""}`;
  const verdict = r.status === 0 ? "ok" : "FAILED";
  const at = ((Date.now() - started) / 1000).toFixed(0);
  console.log(
    `\n# ${name}: ${verdict} in ${(r.ms / 1000).toFixed(1)} s (${done.length} of ${jobs.length}, at ${at} s)`,
  );
  process.stdout.write(r.out.endsWith("\n") ? r.out : `${r.out}\n`);
}

/**
 * Runs the jobs, `size` at once, in the order given; the serial ones (`@serial`: timing-sensitive
 * under load) one at a time once every other job that starts servers has ended. Beside a serial
 * job runs at most one light job: a unit/integration file or group (no language server), so that
 * the serial tail does not leave a core idle. Before, the serial files ran alone after everything
 * else: about 30 s at the end of the run with one of the two cores idle.
 */
function schedule(list, serial, size) {
  const queue = [...list];
  const serialQueue = [...serial];
  const running = new Set();
  const isLight = (job) => !job.command && /^test\/(unit|integration)/.test(job.file);
  return new Promise((resolve) => {
    const next = () => {
      const serialRunning = [...running].some((j) => j.serial);
      const heavyLeft = queue.some((j) => !isLight(j)) || [...running].some((j) => !isLight(j));
      const picks = [];
      if (!serialRunning && !heavyLeft && serialQueue.length > 0) picks.push(serialQueue.shift());
      const serialOn = serialRunning || picks.length > 0;
      while (queue.length > 0 && running.size + picks.length < (serialOn ? 2 : size)) {
        const i = serialOn ? queue.findIndex(isLight) : 0;
        if (i < 0) break;
        picks.push(...queue.splice(i, 1));
      }
      for (const job of picks) {
        running.add(job);
        void runJob(job).then((r) => {
          running.delete(job);
          report(r);
          next();
        });
      }
      if (running.size === 0 && queue.length === 0 && serialQueue.length === 0) resolve();
    };
    next();
  });
}

/**
 * The module a job's process runs: its file, or for a group one that imports each member. Static
 * imports: every member registers its tests before the first one runs (a test started by an
 * awaited import ended the run before the next file's were registered).
 */
function entryOf(job) {
  const pathOf = (file) => (fromTsx ? join(root, file) : compiled.pathOf(file));
  if (!job.members) return pathOf(job.file);
  const entry = join(groupDir, `${job.file.replace(/\W+/g, "-")}-${job.backend ?? "any"}.mjs`);
  writeFileSync(
    entry,
    job.members.map((f) => `import ${JSON.stringify(pathToFileURL(pathOf(f)).href)};\n`).join(""),
  );
  return entry;
}

const fromTsx = process.env.SCALPEL_TEST_TSX === "1";
const runFrom = fromTsx ? ["--import", "tsx"] : ["--enable-source-maps"];
const compiled = fromTsx ? undefined : await compileTests();
const groupDir = mkdtempSync(join(tmpdir(), "scalpel-test-groups-"));
process.on("exit", () => {
  compiled?.remove();
  rmSync(groupDir, { recursive: true, force: true });
});

/** The machine's CPU time so far, busy and idle, in ms summed over its cores. */
function machineCpu() {
  let busy = 0;
  let idle = 0;
  for (const { times } of cpus()) {
    busy += times.user + times.nice + times.sys + times.irq;
    idle += times.idle;
  }
  return { busy, idle };
}
const cpuAtStart = machineCpu();
const started = Date.now();
// Longest first, so that the slow e2e files start at once instead of ending the run alone: tier,
// then the file's size (a fair proxy for how many servers it starts).
const sizeOf = new Map(
  jobs
    .filter((j) => !j.command)
    .map((j) => [j.file, (j.members ?? [j.file]).reduce((n, f) => n + statSync(join(root, f)).size, 0)]),
);
const weight = (j) =>
  (j.file.includes("/e2e/") ? 2e9 : j.file.includes("/integration/") ? 1e9 : 0) + sizeOf.get(j.file);
await schedule(
  [...checks, ...jobs.filter((j) => !j.command && !j.serial).sort((a, b) => weight(b) - weight(a))],
  jobs.filter((j) => j.serial),
  width,
);

const sum = (k) => done.reduce((n, r) => n + r[k], 0);
const failedJobs = done.filter((r) => r.status !== 0 || (!r.command && r.tests === 0 && r.suites === 0));
console.log(`\n# slowest files`);
for (const r of [...done].sort((a, b) => b.ms - a.ms).slice(0, 12))
  console.log(
    `#   ${(r.ms / 1000).toFixed(1).padStart(6)} s${r.cpu ? ` (cpu ${r.cpu.toFixed(1)} s)` : ""}  ${r.file}${r.backend ? ` [${r.backend}]` : ""}`,
  );
if (done.some((r) => r.cpu > 0)) {
  console.log("# cpu by file");
  for (const r of [...done].sort((a, b) => b.cpu - a.cpu))
    console.log(`#   ${r.cpu.toFixed(1).padStart(6)} s  ${r.file}${r.backend ? ` [${r.backend}]` : ""}`);
  console.log(`#   ${done.reduce((n, r) => n + r.cpu, 0).toFixed(0)} s of cpu in all`);
}
// CI shows the tail of the run: each failure's own error is repeated here, where it is seen.
for (const r of failedJobs) {
  console.log(
    `# failed: ${r.file}${r.backend ? ` [${r.backend}]` : ""} (exit ${r.status}, ${r.tests} tests)`,
  );
  for (const line of failureDetails(r.out)) console.log(`#   ${line}`);
}
// How busy the machine was (this run and whatever else ran): far under 100% means the jobs wait
// more than they compute, and more of them at once would help; near 100%, only less work would.
const cpuAtEnd = machineCpu();
const busy = cpuAtEnd.busy - cpuAtStart.busy;
const busyShare = busy / (busy + cpuAtEnd.idle - cpuAtStart.idle);
console.log(
  `# ${jobs.length} jobs in ${((Date.now() - started) / 1000).toFixed(1)} s, ${width} at once; the machine's ${cpus().length} cores were ${(100 * busyShare).toFixed(0)}% busy (${(busy / 1000).toFixed(0)} s of CPU)`,
);
console.log(`${sum("pass")} passed, ${sum("fail")} failed, ${sum("skipped")} skipped`);
process.exit(failedJobs.length > 0 || sum("fail") > 0 ? 1 : 0);
