import * as assert from "node:assert/strict";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { IgnoreRules, walkFiles } from "../../src/project/ignore.js";
import { makeTempProject, type TempProject } from "../helpers/fixtures.js";

let tmp: TempProject;

async function put(rel: string, text = "x\n"): Promise<void> {
  const abs = join(tmp.dir, rel);
  await mkdir(dirname(abs), { recursive: true });
  await writeFile(abs, text);
}

before(async () => {
  tmp = await makeTempProject("scalpel-ignore-");
  await put(".gitignore", "*.log\n/out/\ngenerated/\n!keep.log\n");
  await put("src/a.ts");
  await put("src/b.log");
  await put("keep.log");
  await put("out/x.js");
  await put("src/out/y.ts"); // `/out/` is anchored to the root
  await put("src/generated/z.ts");
  await put("node_modules/pkg/index.js");
  await put("pkg/node_modules/dep/index.js");
  await put("target/debug/app");
  await put("build/app.js");
  await put(".dart_tool/x");
  await put(".git/HEAD");
  await put(".scalpel/cache/blob");
  await put(".scalpel/project.yml");
  await put("lib/.gitignore", "*.tmp\n!important.tmp\n");
  await put("lib/a.tmp");
  await put("lib/important.tmp");
  await put("lib/c.ts");
  await put("vendor/big.js");
  await mkdir(join(tmp.base, "outside"));
  await put("../outside/o.ts");
  await symlink(join(tmp.base, "outside"), join(tmp.dir, "link-out"));
  await symlink(join(tmp.base, "outside", "o.ts"), join(tmp.dir, "link-out.ts"));
  await symlink(join(tmp.dir, "src"), join(tmp.dir, "link-src"));
});
after(() => tmp.cleanup());

test("isIgnored: built-in dirs, .gitignore (root and nested), extra patterns", () => {
  const rules = new IgnoreRules(tmp.dir, ["vendor/"]);
  const yes: Array<[string, boolean]> = [
    ["node_modules", true],
    ["node_modules/pkg/index.js", false],
    ["pkg/node_modules/dep/index.js", false],
    ["target", true],
    ["build/app.js", false],
    [".git/HEAD", false],
    [".dart_tool", true],
    [".scalpel/cache", true],
    [".scalpel/cache/blob", false],
    ["src/b.log", false],
    ["out", true],
    ["src/generated/z.ts", false],
    ["lib/a.tmp", false],
    ["vendor/big.js", false],
  ];
  for (const [p, isDir] of yes) assert.equal(rules.isIgnored(p, isDir), true, p);
  const no: Array<[string, boolean]> = [
    ["src/a.ts", false],
    ["keep.log", false],
    ["src/out/y.ts", false],
    ["lib/important.tmp", false],
    ["lib/c.ts", false],
    [".scalpel/project.yml", false],
    ["build", false], // a file named build is not the build directory
    [".", true],
  ];
  for (const [p, isDir] of no) assert.equal(rules.isIgnored(p, isDir), false, p);
});

async function collect(start: string, skipIgnored: boolean, extra: object = {}): Promise<string[]> {
  const rules = new IgnoreRules(tmp.dir, ["vendor/"]);
  const out: string[] = [];
  for await (const e of walkFiles(tmp.dir, start, rules, { skipIgnored, ...extra })) {
    out.push(e.isDir ? `${e.rel}/` : e.rel);
  }
  return out;
}

test("walkFiles skips ignored dirs and never leaves the root", async () => {
  const all = await collect(".", true);
  assert.deepEqual(all, [
    ".gitignore",
    ".scalpel/",
    ".scalpel/project.yml",
    "keep.log",
    "lib/",
    "lib/.gitignore",
    "lib/c.ts",
    "lib/important.tmp",
    "link-src/",
    "pkg/",
    "src/",
    "src/a.ts",
    "src/out/",
    "src/out/y.ts",
  ]);
});

test("walkFiles without skipping still refuses symlinks out of the root and does not follow dir links", async () => {
  const all = await collect(".", false);
  assert.ok(all.includes("node_modules/pkg/index.js"));
  assert.ok(all.includes("link-src/"));
  assert.ok(!all.some((p) => p.startsWith("link-src/a")));
  assert.ok(!all.some((p) => p.startsWith("link-out")));
});

test("walkFiles from a subdirectory, with maxDepth and maxFiles", async () => {
  assert.deepEqual(await collect("src", true), ["src/a.ts", "src/out/", "src/out/y.ts"]);
  assert.deepEqual(await collect("src", true, { maxDepth: 1 }), ["src/a.ts", "src/out/"]);
  const two = await collect(".", true, { maxFiles: 2 });
  assert.equal(two.filter((p) => !p.endsWith("/")).length, 2);
});
