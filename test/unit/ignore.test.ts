import * as assert from "node:assert/strict";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { IgnoreRules, walkFiles } from "../../src/files/ignore.js";
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
  // Output folders are hidden only where a manifest beside them names them.
  await put("rs/Cargo.toml", '[package]\nname = "rs"\n');
  await put("rs/target/debug/app");
  await put("rs/src/build/gen.rs"); // a source folder named build
  await put(
    "web/tsconfig.json",
    '{\n  // "outDir": "./dist",\n  "compilerOptions": { "outDir": "./lib", }\n}\n',
  );
  await put("web/lib/index.js");
  await put("web/dist/keep.ts");
  await put("app/pubspec.yaml", "name: app\n");
  await put("app/build/out.js");
  await put("scripts/build/tool.ts"); // tracked, not ignored: date-fns keeps build scripts here
  await put(".ignore", "scratch/\n");
  await put("scratch/notes.ts");
  await mkdir(join(tmp.base, "outside"));
  await put("../outside/o.ts");
  await symlink(join(tmp.base, "outside"), join(tmp.dir, "link-out"));
  await symlink(join(tmp.base, "outside", "o.ts"), join(tmp.dir, "link-out.ts"));
  await symlink(join(tmp.dir, "src"), join(tmp.dir, "link-src"));
});
after(() => tmp.cleanup());

test("isIgnored: dependency dirs, .gitignore and .ignore (root and nested), extra patterns, declared outputs", () => {
  const rules = new IgnoreRules(tmp.dir, ["vendor/"]);
  const yes: Array<[string, boolean]> = [
    ["node_modules", true],
    ["node_modules/pkg/index.js", false],
    ["pkg/node_modules/dep/index.js", false],
    [".git/HEAD", false],
    [".scalpel/cache", true],
    [".scalpel/cache/blob", false],
    ["src/b.log", false],
    ["out", true],
    ["src/generated/z.ts", false],
    ["lib/a.tmp", false],
    ["vendor/big.js", false],
    ["scratch/notes.ts", false], // .ignore, as ripgrep reads it
    ["rs/target", true], // beside Cargo.toml
    ["rs/target/debug/app", false],
    ["web/lib/index.js", false], // tsconfig outDir
    ["app/build", true], // beside pubspec.yaml
  ];
  for (const [p, isDir] of yes) assert.equal(rules.isIgnored(p, isDir), true, p);
  const no: Array<[string, boolean]> = [
    ["src/a.ts", false],
    ["keep.log", false],
    ["src/out/y.ts", false],
    ["lib/important.tmp", false],
    ["lib/c.ts", false],
    [".scalpel/project.yml", false],
    [".", true],
    // A folder named like an output is a source folder unless something says it is output.
    ["build/app.js", false],
    ["target/debug/app", false],
    [".dart_tool/x", false],
    ["scripts/build/tool.ts", false],
    ["rs/src/build/gen.rs", false],
    ["web/dist/keep.ts", false], // only named in a comment
  ];
  for (const [p, isDir] of no) assert.equal(rules.isIgnored(p, isDir), false, p);
});

test("isIgnored: a gitignored build/ is hidden; a new .gitignore or manifest is seen after refresh", async () => {
  const rules = new IgnoreRules(tmp.dir, []);
  assert.equal(rules.isIgnored("scripts/build", true), false);
  await put("scripts/.gitignore", "build/\n");
  await put("target/Cargo.toml.bak");
  rules.refresh();
  assert.equal(rules.isIgnored("scripts/build", true), true);
  assert.equal(rules.isIgnored("scripts/build/tool.ts", false), true);
  assert.equal(rules.isIgnored("target", true), false, "no Cargo.toml beside it");
  await put("scripts/.gitignore", "");
  rules.refresh();
  assert.equal(rules.isIgnored("scripts/build", true), false);
});

test("isIgnored without adapter outputs hides no output folder", () => {
  const rules = new IgnoreRules(tmp.dir, [], []);
  assert.equal(rules.isIgnored("rs/target", true), false);
  assert.equal(rules.isIgnored("web/lib", true), false);
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
  // Folders only named like outputs (build/, target/ without Cargo.toml, .dart_tool/ without
  // pubspec.yaml, scripts/build/) are walked; declared outputs and ignored folders are not.
  assert.deepEqual(all, [
    ".dart_tool/",
    ".dart_tool/x",
    ".gitignore",
    ".ignore",
    ".scalpel/",
    ".scalpel/project.yml",
    "app/",
    "app/pubspec.yaml",
    "build/",
    "build/app.js",
    "keep.log",
    "lib/",
    "lib/.gitignore",
    "lib/c.ts",
    "lib/important.tmp",
    "link-src/",
    "pkg/",
    "rs/",
    "rs/Cargo.toml",
    "rs/src/",
    "rs/src/build/",
    "rs/src/build/gen.rs",
    "scripts/",
    "scripts/.gitignore",
    "scripts/build/",
    "scripts/build/tool.ts",
    "src/",
    "src/a.ts",
    "src/out/",
    "src/out/y.ts",
    "target/",
    "target/Cargo.toml.bak",
    "target/debug/",
    "target/debug/app",
    "web/",
    "web/dist/",
    "web/dist/keep.ts",
    "web/tsconfig.json",
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

test("every built-in adapter's dependency folders are skipped at any depth, and only those", async () => {
  const { adapters } = await import("../../language-servers/index.js");
  const deps = adapters.flatMap((a) => a.dependencyDirs ?? []);
  assert.ok(deps.includes("node_modules"));
  const rules = new IgnoreRules(tmp.dir, []);
  for (const dir of deps) {
    assert.equal(rules.isIgnored(dir, true), true, dir);
    assert.equal(rules.isIgnored(`deep/er/${dir}/x.txt`, false), true, dir);
    // A file of that name is no folder of dependencies.
    assert.equal(rules.isIgnored(`deep/${dir}`, false), false, dir);
  }
  // A heavy folder the watcher skips is not hidden from search for that (a tracked `build/` of sources).
  const watchedOnly = adapters.flatMap((a) => a.ignoredDirs).filter((d) => !deps.includes(d));
  assert.ok(watchedOnly.includes("build"));
  assert.equal(rules.isIgnored("src/build", true), false);
});
