/**
 * Tracked files from git's index (src/files/git-index.ts), checked against `git ls-files` on real
 * repositories in index versions 2, 3 (an intent-to-add entry sets the extended flag) and 4 (paths
 * prefix-compressed); a broken index gives no tracked paths; the ignore rules let a tracked file
 * through whatever `.gitignore` says, and reading it runs none of the repository's configuration.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { parseIndex } from "../../src/files/git-index.js";
import { IgnoreRules } from "../../src/files/ignore.js";

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** git with no system or user configuration, as a test of ours must run it. */
function git(cwd: string, ...args: string[]): string {
  const r = spawnSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@example.invalid",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@example.invalid",
    },
  });
  assert.equal(r.status, 0, `git ${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

function repo(): string {
  const dir = mkdtempSync(join(tmpdir(), "scalpel-git-index-"));
  dirs.push(dir);
  git(dir, "init", "-q");
  const put = (rel: string, text: string) => {
    mkdirSync(join(dir, rel, ".."), { recursive: true });
    writeFileSync(join(dir, rel), text);
  };
  put(".gitignore", "package.json\nbuild/\n*.log\n");
  put("package.json", '{"name":"tracked-though-ignored"}\n');
  put("src/index.ts", "export const a = 1;\n");
  put("src/deep/very/long/folder/name/for/prefix/compression/a-file-with-a-long-name.ts", "export {};\n");
  put("src/deep/very/long/folder/name/for/prefix/compression/a-file-with-a-longer-name.ts", "export {};\n");
  put("build/tool.ts", "export const tool = 1;\n");
  put("build/generated.ts", "export const generated = 1;\n");
  put("ünïcode/名前.ts", "export {};\n");
  git(dir, "add", ".gitignore", "src", "ünïcode");
  git(dir, "add", "-f", "package.json", "build/tool.ts");
  git(dir, "commit", "-q", "-m", "one");
  return dir;
}

const lsFiles = (dir: string) =>
  new Set(
    git(dir, "-c", "core.quotepath=false", "ls-files", "-z")
      .split("\0")
      .filter((p) => p !== ""),
  );

for (const version of [2, 3, 4]) {
  test(`index version ${version}: the same paths as git ls-files`, () => {
    const dir = repo();
    if (version === 3) {
      writeFileSync(join(dir, "later.ts"), "export {};\n");
      git(dir, "add", "-N", "later.ts"); // intent-to-add: an extended-flags entry, so git writes v3
    }
    git(dir, "update-index", "--index-version", String(version));
    const bytes = readFileSync(join(dir, ".git", "index"));
    assert.equal(bytes.readUInt32BE(4), version);
    assert.deepEqual(parseIndex(bytes), lsFiles(dir));
  });
}

test("an index that does not parse gives no tracked paths, never a throw", () => {
  const good = readFileSync(join(repo(), ".git", "index"));
  assert.equal(parseIndex(Buffer.from("not an index")), null);
  assert.equal(parseIndex(good.subarray(0, 40)), null, "cut inside the first entry");
  const lying = Buffer.from(good);
  lying.writeUInt32BE(0xffffffff, 8);
  assert.equal(parseIndex(lying), null, "more entries than the file can hold");
  const v9 = Buffer.from(good);
  v9.writeUInt32BE(9, 4);
  assert.equal(parseIndex(v9), null);
});

test("a tracked file is not ignored whatever .gitignore says; an untracked one beside it is", () => {
  const dir = repo();
  const rules = new IgnoreRules(dir, []);
  assert.equal(rules.isIgnored("package.json", false), false, "tracked, though a pattern matches it");
  assert.equal(rules.isIgnored("build", true), false, "holds a tracked file");
  assert.equal(rules.isIgnored("build/tool.ts", false), false);
  assert.equal(rules.isIgnored("build/generated.ts", false), true, "untracked, in an ignored folder");
  writeFileSync(join(dir, "debug.log"), "x\n");
  assert.equal(rules.isIgnored("debug.log", false), true);
  // Without the index (a copy that is no repository) the patterns hold again.
  rmSync(join(dir, ".git"), { recursive: true, force: true });
  assert.equal(new IgnoreRules(dir, []).isIgnored("package.json", false), true);
});

test("reading the index runs nothing the repository's configuration names", () => {
  const dir = repo();
  const marker = join(dir, "..", `marker-${Date.now()}`);
  const hook = join(dir, "hook.sh");
  writeFileSync(hook, `#!/bin/sh\necho ran > ${marker}\n`, { mode: 0o755 });
  const config = join(dir, ".git", "config");
  writeFileSync(
    config,
    `${readFileSync(config, "utf8")}[core]\n\tfsmonitor = ${hook}\n\thooksPath = ${dir}\n[diff]\n\texternal = ${hook}\n`,
  );
  const rules = new IgnoreRules(dir, []);
  assert.equal(rules.isIgnored("package.json", false), false);
  assert.equal(existsSync(marker), false, "a program of the repository's configuration ran");
});
