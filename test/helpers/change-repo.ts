/**
 * Fixture repositories for get_change_impact: `test/fixtures/<name>/base` committed in a fresh git
 * repository, then `work` copied over it as uncommitted changes (the test's own git runs with a
 * fixed identity and no user config). `armHostile` then gives the repository the config an
 * attacker would ship: an fsmonitor hook, an external diff, a textconv driver, clean/smudge
 * filters, a hooks folder and an ssh command, each a script that leaves a marker file when run.
 */
import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { cp } from "node:fs/promises";
import { join } from "node:path";
import { fixturesRoot, makeTempProject, type TempProject } from "./fixtures.js";
import { type Diagnostic, parseDiagnostics } from "./mcp.js";

const gitEnv = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.com",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.com",
};

/** A get_change_impact answer as the e2e tests read it (its structured form). */
export interface ChangeImpact {
  base: string;
  changed: Array<{
    relative_path: string;
    status: string;
    from?: string;
    symbols: Array<{ name_path: string; change: string; from?: string; users?: number }>;
  }>;
  affected: Array<{
    name_path: string;
    relative_path: string;
    reason: string;
    sites?: number;
    files: string[];
    tests?: string[];
    implementations?: string[];
  }>;
  diagnostics: Array<{ relative_path: string; diagnostics: string[] }>;
  complete: boolean;
  incomplete_reason?: string;
  total?: number;
}

/** The affected entry of `name` (fails naming the others when there is none). */
export function affectedOf(impact: ChangeImpact, name: string): ChangeImpact["affected"][number] {
  const a = impact.affected.find((x) => x.name_path === name);
  assert.ok(a, `${name} is not among the affected: ${impact.affected.map((x) => x.name_path).join(", ")}`);
  return a;
}

/** The errors the answer lists for `rel`, parsed. */
export function errorsOf(impact: ChangeImpact, rel: string): Diagnostic[] {
  return parseDiagnostics(impact.diagnostics.find((d) => d.relative_path === rel)?.diagnostics ?? []);
}

/** `git <args>` in `dir` with `input` on its stdin (plumbing such as mktree, hash-object --stdin). */
export function gitWith(dir: string, args: string[], input?: string): string {
  const r = spawnSync("git", args, {
    cwd: dir,
    env: gitEnv,
    encoding: "utf8",
    ...(input === undefined ? {} : { input }),
  });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

export function git(dir: string, ...args: string[]): string {
  return gitWith(dir, args);
}

/** The fixture's base committed, its work tree changes on top (untracked files included), `deleted` removed. */
export async function changeRepo(name: string, deleted: readonly string[] = []): Promise<TempProject> {
  const fx = await makeTempProject(`scalpel-${name}-`);
  await cp(join(fixturesRoot, name, "base"), fx.dir, { recursive: true });
  git(fx.dir, "init", "-q");
  git(fx.dir, "add", "-A");
  git(fx.dir, "commit", "-qm", "base");
  await cp(join(fixturesRoot, name, "work"), fx.dir, { recursive: true });
  for (const rel of deleted) rmSync(join(fx.dir, rel));
  return fx;
}

/** The programs a hostile config names, by the marker each leaves. */
export const hostilePrograms = ["fsmonitor", "extdiff", "textconv", "clean", "smudge", "hook", "ssh"];

/** Arms the repository; returns the folder where markers appear (outside the project). */
export function armHostile(fx: TempProject, pattern: string): string {
  const markers = join(fx.base, "markers");
  const bin = join(fx.base, "bin");
  mkdirSync(markers, { recursive: true });
  mkdirSync(join(bin, "hooks"), { recursive: true });
  const script = (name: string, tail = "") => {
    const file = join(bin, name);
    writeFileSync(file, `#!/bin/sh\ntouch '${join(markers, name)}'\n${tail}`);
    chmodSync(file, 0o755);
    return file;
  };
  for (const hook of ["pre-commit", "post-checkout", "post-index-change", "reference-transaction"]) {
    writeFileSync(join(bin, "hooks", hook), `#!/bin/sh\ntouch '${join(markers, "hook")}'\n`);
    chmodSync(join(bin, "hooks", hook), 0o755);
  }
  appendFileSync(
    join(fx.dir, ".git", "config"),
    [
      "[core]",
      `\tfsmonitor = ${script("fsmonitor")}`,
      `\thooksPath = ${join(bin, "hooks")}`,
      `\tsshCommand = ${script("ssh")}`,
      `\tpager = ${script("pager", "cat\n")}`,
      "[diff]",
      `\texternal = ${script("extdiff")}`,
      '[diff "evil"]',
      `\ttextconv = ${script("textconv", 'cat "$1"\n')}`,
      '[filter "evil"]',
      `\tclean = ${script("clean", "cat\n")}`,
      `\tsmudge = ${script("smudge", "cat\n")}`,
      "",
    ].join("\n"),
  );
  writeFileSync(join(fx.dir, ".git", "info", "attributes"), `${pattern} diff=evil filter=evil\n`);
  return markers;
}

/** Markers present now. */
export function markersIn(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).sort() : [];
}

export function clearMarkers(dir: string): void {
  for (const m of markersIn(dir)) rmSync(join(dir, m));
}

/** Plain git on the armed repository, as a person would run it: the control that the config is live. */
export function plainGitRuns(dir: string): void {
  const run = (...args: string[]) => spawnSync("git", args, { cwd: dir, env: gitEnv, encoding: "utf8" });
  run("status", "--short");
  run("diff");
  run("diff", "--no-ext-diff");
}
