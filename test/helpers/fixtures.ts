/**
 * Fixture projects for the e2e tests. Tests never touch `test/fixtures/` in place: each test file
 * copies a fixture into a fresh temporary directory and removes it afterwards.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cp,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  realpath,
  rm,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { ownCompiler } from "../../language-servers/typescript-native.js";
import { lineOf, sitesOn } from "./anchors.js";

export const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
export const fixturesRoot = join(repoRoot, "test", "fixtures");

export interface TempProject {
  /** The project root (realpath), `<base>/project`. */
  dir: string;
  /** The temporary parent of `dir`; tests may put files "outside the project" here. */
  base: string;
  cleanup(): Promise<void>;
}

/** A fresh, empty temporary directory (realpath) with a `project/` folder inside. */
export async function makeTempProject(prefix = "scalpel-e2e-"): Promise<TempProject> {
  const base = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  const dir = join(base, "project");
  await mkdir(dir);
  return { dir, base, cleanup: () => rm(base, { recursive: true, force: true }) };
}

/** Copies `test/fixtures/<name>` to a fresh temporary directory (byte for byte). */
export async function copyFixture(name: string): Promise<TempProject> {
  const tmp = await makeTempProject(`scalpel-${name}-`);
  await cp(join(fixturesRoot, name), tmp.dir, { recursive: true, verbatimSymlinks: true });
  return tmp;
}

/**
 * sha256 of every file under `dir` (symlinks by target, not followed), keyed by relative path.
 * Scalpel's own state folder (`.scalpel/` anywhere in the tree) is left out: a cache the server
 * writes is not a change to the project.
 */
export async function hashTree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  async function walk(d: string): Promise<void> {
    for (const name of (await readdir(d)).sort()) {
      if (name === ".scalpel") continue;
      const full = join(d, name);
      const st = await lstat(full);
      const rel = relative(dir, full).split("\\").join("/");
      if (st.isSymbolicLink()) out[rel] = `symlink:${await readlink(full)}`;
      else if (st.isDirectory()) await walk(full);
      else
        out[rel] = createHash("sha256")
          .update(await readFile(full))
          .digest("hex");
    }
  }
  await walk(dir);
  return out;
}

export function readText(dir: string, rel: string): Promise<string> {
  return readFile(join(dir, rel), "utf8");
}

export function readBytes(dir: string, rel: string): Promise<Buffer> {
  return readFile(join(dir, rel));
}

/**
 * TypeScript 7's native compiler (scalpel's own copy, found as the native backend finds it), else
 * the bundled 5.9 `tsc`: the judge of "the edited fixture still compiles". Measured on the ts-*
 * fixtures: 0.03 s of CPU a run against 0.8 s, the same verdicts (ts-errors: the same six errors;
 * the others pass).
 */
const native = ownCompiler();

/** Runs `tsc --noEmit -p <dir>`; returns the exit status and the compiler output. */
export function runTsc(dir: string): { status: number | null; output: string } {
  const [command, args] = !("missing" in native)
    ? [native.exe, []]
    : [process.execPath, [join(repoRoot, "node_modules", "typescript", "bin", "tsc")]];
  const r = spawnSync(command, [...args, "--noEmit", "-p", dir], { encoding: "utf8", timeout: 120_000 });
  return { status: r.status, output: `${r.stdout ?? ""}${r.stderr ?? ""}` };
}

/**
 * `cargo check --quiet --offline [extra]` in `dir`, with its own target folder (`targetDir`: a
 * test beside a scalpel whose own cargo check uses `target` passes another, so neither waits on the
 * other's lock); the exit status and the compiler output.
 */
export function cargoCheck(
  dir: string,
  extra: readonly string[] = [],
  targetDir = join(dir, "target"),
): { status: number | null; output: string } {
  const r = spawnSync("cargo", ["check", "--quiet", "--offline", ...extra], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, CARGO_TARGET_DIR: targetDir },
  });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

/** Fails with the compiler's output unless `tsc --noEmit -p <dir>` passes (one compiler run). */
export function assertCompiles(dir: string): void {
  const r = runTsc(dir);
  if (r.status !== 0) throw new Error(`tsc failed (exit ${r.status}):\n${r.output}`);
}

export interface Site {
  relative_path: string;
  line: number;
  column: number;
}

export interface LargeFixture {
  /** Files written, relative to the project root. */
  files: string[];
  /** Where `Core` and `Core/compute` are declared. */
  coreFile: string;
  /** Every type-precise call site of `Core.compute` (one per module). */
  computeSites: Site[];
  /** Files that call `Core.compute` (the rename must touch exactly these plus `coreFile`). */
  callerFiles: string[];
}

function moduleText(i: number): string {
  const id = String(i).padStart(3, "0");
  const prev = i === 0 ? null : String(i - 1).padStart(3, "0");
  const lines: string[] = [];
  lines.push(`import { type Core, makeCore } from "./core";`);
  if (prev !== null) lines.push(`import { helper${prev} } from "./mod${prev}";`);
  lines.push("");
  lines.push(
    `export interface Record${id} {`,
    "  id: number;",
    "  label: string;",
    "  tags: readonly string[];",
    "}",
  );
  lines.push("");
  lines.push(`export type Keyed${id} = { [K in keyof Record${id} as \`get_\${K}\`]: () => Record${id}[K] };`);
  lines.push("");
  lines.push(`/** Has a method named like Core's; unrelated to it. */`);
  lines.push(`export class Noise${id} {`);
  lines.push("  compute(x: number): string {", `    return \`noise ${id} \${x}\`;`, "  }", "}");
  lines.push("");
  for (let k = 0; k < 12; k++) {
    lines.push(
      `export function filler${id}_${k}<T extends Record${id}>(items: readonly T[]): Map<number, T[]> {`,
    );
    lines.push("  const byId = new Map<number, T[]>();");
    lines.push("  for (const item of items) {");
    lines.push(`    const bucket = byId.get(item.id + ${k}) ?? [];`);
    lines.push("    bucket.push(item);");
    lines.push(`    byId.set(item.id + ${k}, bucket);`);
    lines.push("  }");
    lines.push("  return byId;");
    lines.push("}");
    lines.push("");
  }
  lines.push(`export function helper${id}(v: number, core?: Core): number {`);
  const rest = prev === null ? "0" : `helper${prev}(v - 1)`;
  switch (i % 3) {
    case 0:
      lines.push("  const c = core ?? makeCore();");
      lines.push(`  const own = new Noise${id}().compute(v).length;`);
      lines.push(`  return v <= 0 ? own : c.compute(v) + ${rest}; // site`);
      break;
    case 1:
      lines.push(`  return v <= 0 ? 0 : makeCore().compute(v) + ${rest}; // site`);
      break;
    default:
      lines.push(`  const all = [core ?? makeCore()];`);
      lines.push(`  return v <= 0 ? 0 : (all.map((k) => k.compute(v))[0] ?? 0) + ${rest}; // site`);
      break;
  }
  lines.push("}");
  lines.push("");
  return lines.join("\n");
}

/**
 * Writes a generated TypeScript project of `n` interdependent modules into `dir`: one `Core` class
 * whose `compute` method is called from every module through an inferred receiver, plus noise
 * (a same-named unrelated method, generic helpers, mapped types) so that loading takes measurable time.
 */
export async function generateLargeFixture(dir: string, n = 300): Promise<LargeFixture> {
  await mkdir(join(dir, "src"), { recursive: true });
  await writeTsconfig(dir);
  const core = [
    "export class Core {",
    "  constructor(private readonly factor = 2) {}",
    "",
    "  compute(x: number): number {",
    "    return x * this.factor;",
    "  }",
    "}",
    "",
    "export function makeCore(): Core {",
    "  return new Core();",
    "}",
    "",
  ].join("\n");
  const coreFile = "src/core.ts";
  await writeFile(join(dir, coreFile), core);
  const files = [coreFile];
  const computeSites: Site[] = [];
  for (let i = 0; i < n; i++) {
    const rel = `src/mod${String(i).padStart(3, "0")}.ts`;
    const text = moduleText(i);
    await writeFile(join(dir, rel), text);
    files.push(rel);
    const siteLine = lineOf(text, "// site");
    const needle = text.split("\n")[siteLine - 1]!;
    for (const p of sitesOn(text, needle, "compute(v)")) computeSites.push({ relative_path: rel, ...p });
  }
  const callerFiles = [...new Set(computeSites.map((s) => s.relative_path))].sort();
  return { files, coreFile, computeSites, callerFiles };
}

// ---- what the ts-basic fixture contains (computed from its text by anchors) ----

export interface ExpectedSite extends Site {
  /** name_path of the innermost named declaration that holds the call. */
  containing: string;
}

/** [file, unique text on the line, name path of the containing symbol] for Money.multiplyByRate calls. */
const moneyRateCalls: Array<[string, string, string]> = [
  ["src/money.ts", "return this.multiplyByRate(2);", "Money/double"],
  ["src/wallet.ts", "first.multiplyByRate(rate)", "Wallet/grow"],
  ["src/wallet.ts", "this.items.map((x) => x.multiplyByRate(rate))", "Wallet/scaledAll"],
  ["src/wallet.ts", "m.multiplyByRate(2).multiplyByRate(3)", "walletTotal"],
  ["src/wallet.ts", "all[0]?.multiplyByRate(5)", "firstScaled"],
  ["src/report.ts", "makeMoney(2).multiplyByRate(0.5)", "DEFAULT_FEE"],
  ["src/report.ts", "walletTotal().multiplyByRate(", "buildReport"],
  ["src/report.ts", "pick(makeMonies(2), 1).multiplyByRate(7)", "pickAndScale"],
  ["src/report.ts", "m.multiplyByRate(2).amount", "later"],
  ["src/report.ts", "makeMoney(10).multiplyByRate(1.1)", "Ledger/base"],
  ["src/format.ts", "m.multiplyByRate(1)", "formatMoney"],
  ["src/main.ts", "makeMoney(2).double().multiplyByRate(3)", "main"],
];

/** Calls of the unrelated Thermometer.multiplyByRate and of an object literal's same-named member. */
const otherRateCalls: Array<[string, string]> = [
  ["src/report.ts", "warmer = t.multiplyByRate(2)"],
  ["src/unrelated.ts", "t.multiplyByRate(1.2)"],
  ["src/unrelated.ts", "fake.multiplyByRate(3)"],
];

async function sitesFor(dir: string, calls: Array<[string, string, string]>): Promise<ExpectedSite[]> {
  const out: ExpectedSite[] = [];
  for (const [rel, needle, containing] of calls) {
    const text = await readText(dir, rel);
    for (const p of sitesOn(text, needle, "multiplyByRate"))
      out.push({ relative_path: rel, ...p, containing });
  }
  return out;
}

/** Every type-precise call site of Money.multiplyByRate in a copy of ts-basic at `dir`. */
export function moneyRateSites(dir: string): Promise<ExpectedSite[]> {
  return sitesFor(dir, moneyRateCalls);
}

/** Call sites of same-named methods that are NOT Money.multiplyByRate. */
export function otherRateSites(dir: string): Promise<ExpectedSite[]> {
  return sitesFor(
    dir,
    otherRateCalls.map(([f, n]) => [f, n, ""]),
  );
}

/** `file:line:column` keys, sorted, for comparing sets of sites with readable failure output. */
export function siteKeys(
  sites: ReadonlyArray<{ relative_path: string; line: number; column?: number }>,
): string[] {
  // find_referencing_symbols gives a site's column only on a line that holds more than one site.
  const perLine = new Map<string, number>();
  for (const s of sites)
    perLine.set(`${s.relative_path}:${s.line}`, (perLine.get(`${s.relative_path}:${s.line}`) ?? 0) + 1);
  return sites
    .map((s) => {
      const line = `${s.relative_path}:${s.line}`;
      return (perLine.get(line) ?? 0) > 1 ? `${line}:${s.column}` : line;
    })
    .sort();
}

/** Writes a file from a separate OS process, the way an editor, a formatter or git would. */
export function writeFromAnotherProcess(path: string, content: string): void {
  execFileSync(process.execPath, [
    "-e",
    "require('node:fs').writeFileSync(process.argv[1], process.argv[2])",
    path,
    content,
  ]);
}

/** The strict, no-emit tsconfig over `src/` that generated TypeScript projects use. */
export async function writeTsconfig(dir: string): Promise<void> {
  const tsconfig = {
    compilerOptions: {
      target: "ES2022",
      module: "ESNext",
      moduleResolution: "Bundler",
      lib: ["ES2022"],
      types: [],
      strict: true,
      noEmit: true,
      skipLibCheck: true,
    },
    include: ["src"],
  };
  await writeFile(join(dir, "tsconfig.json"), `${JSON.stringify(tsconfig, null, 2)}\n`);
}
