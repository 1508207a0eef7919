/**
 * tsconfigs read by TypeScript's config API (language-servers/tsconfig-read.ts): JSONC, `extends`
 * chains and globs as tsc reads them, and nothing read outside the project root — not an
 * `extends` that leaves it, not a symlink pointing out of it, not through `ts.sys`.
 */
import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { after, before, test } from "node:test";
import {
  compilerOutDirs,
  outDirsWithoutCompiler,
  tsconfigFiles,
  tsconfigOutDirs,
  typescriptApi,
} from "../../language-servers/tsconfig-read.js";
import { repoRoot } from "../helpers/fixtures.js";

let base: string;
let root: string;

async function put(rel: string, text = ""): Promise<void> {
  const abs = join(base, rel);
  await mkdir(dirname(abs), { recursive: true });
  await writeFile(abs, text);
}

const rel = (files: string[]) => files.map((f) => f.slice(root.length + 1)).sort();
const config = () => join(root, "tsconfig.json");
const outDirs = async (text: string) => {
  await writeFile(config(), text);
  return tsconfigOutDirs(text, config(), root);
};

before(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "scalpel-tsconfig-read-")));
  root = join(base, "project");
  for (const f of ["src/a.ts", "src/deep/b.ts", "src/gen/c.ts", "test/t.ts", "dist/old.d.ts"])
    await put(`project/${f}`);
  // Outside the root: a config and sources that would change every answer if they were read.
  await put(
    "outside/base.json",
    '{ "include": ["../project/test"], "compilerOptions": { "outDir": "../project/src" } }',
  );
  await put("outside/lib/x.ts");
});
after(() => rm(base, { recursive: true, force: true }));

test("extends with comments and trailing commas: patterns and outDir relative to the config that declares them", async () => {
  await put(
    "project/configs/base.json",
    [
      "{",
      "  // shared by every package",
      '  "compilerOptions": {',
      '    "strict": true,',
      '    "outDir": "../dist", /* relative to this file */',
      "  },",
      '  "include": ["../src",],',
      '  "exclude": ["../src/gen",],',
      "}",
    ].join("\n"),
  );
  const text =
    '{\n  "extends": "./configs/base.json", // the shared one\n  "compilerOptions": { "declarationDir": "types", },\n}\n';
  assert.deepEqual(await outDirs(text), ["dist", "types"]);
  assert.deepEqual(rel(tsconfigFiles(config(), root)), ["src/a.ts", "src/deep/b.ts"]);
  // Without an exclude of its own, tsc leaves out node_modules and the outDir (dist/old.d.ts).
  await writeFile(config(), '{ "compilerOptions": { "outDir": "dist" } }');
  assert.deepEqual(rel(tsconfigFiles(config(), root)), [
    "src/a.ts",
    "src/deep/b.ts",
    "src/gen/c.ts",
    "test/t.ts",
  ]);
  // A commented-out outDir names nothing; a config naming no output costs no parse.
  assert.deepEqual(
    await outDirs('{\n  // "outDir": "./dist",\n  "compilerOptions": { "strict": true }\n}'),
    [],
  );
});

test("an extends from a package inside the root is followed like tsc follows it", async () => {
  await put(
    "project/node_modules/@acme/tsconfig/package.json",
    JSON.stringify({ name: "@acme/tsconfig", version: "1.0.0" }),
  );
  await put(
    "project/node_modules/@acme/tsconfig/lib.json",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: tsconfig's own placeholder, not a template
    '{ "compilerOptions": { "outDir": "${configDir}/build" }, "include": ["${configDir}/src/deep"] }',
  );
  assert.deepEqual(await outDirs('{ "extends": "@acme/tsconfig/lib.json" }'), ["build"]);
  assert.deepEqual(rel(tsconfigFiles(config(), root)), ["src/deep/b.ts"]);
});

test("nothing outside the root is read: an extends that leaves it, a symlink out, a symlinked folder", async () => {
  assert.deepEqual(await outDirs('{ "extends": "../outside/base.json" }'), []);
  assert.deepEqual(tsconfigFiles(config(), root), [], "an extends not read leaves the file list unknown");
  await symlink(join(base, "outside", "base.json"), join(root, "linked.json"));
  assert.deepEqual(await outDirs('{ "extends": "./linked.json" }'), []);
  assert.deepEqual(tsconfigFiles(config(), root), []);
  // A config that is itself a symlink out of the root.
  await symlink(join(base, "outside", "base.json"), join(root, "tsconfig.out.json"));
  assert.deepEqual(tsconfigOutDirs('{ "outDir": 1 }', join(root, "tsconfig.out.json"), root), []);
  // Files behind a symlinked folder are not listed, inside the root or out of it.
  await symlink(join(base, "outside", "lib"), join(root, "src", "lib"));
  await writeFile(config(), '{ "include": ["src"] }');
  assert.deepEqual(rel(tsconfigFiles(config(), root)), ["src/a.ts", "src/deep/b.ts", "src/gen/c.ts"]);
  // A config above the root (tsserver may answer one) is not read at all.
  assert.deepEqual(tsconfigFiles(join(base, "outside", "base.json"), root), []);
});

test("the API's own disk access (ts.sys) is never used", async () => {
  const ts = typescriptApi();
  const sys = ts.sys as unknown as Record<string, unknown>;
  const saved = new Map<string, unknown>();
  const touched: string[] = [];
  for (const name of [
    "readFile",
    "fileExists",
    "directoryExists",
    "readDirectory",
    "getDirectories",
    "realpath",
  ]) {
    saved.set(name, sys[name]);
    sys[name] = (...args: unknown[]) => {
      touched.push(`${name}(${String(args[0])})`);
      return (saved.get(name) as (...a: unknown[]) => unknown)(...args);
    };
  }
  try {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: tsconfig's own placeholder, not a template
    await put("project/node_modules/@acme/tsconfig/lib.json", '{ "include": ["${configDir}/src"] }');
    await writeFile(config(), '{ "extends": ["@acme/tsconfig/lib.json", "./configs/base.json"] }');
    assert.ok(tsconfigFiles(config(), root).length > 0);
    assert.deepEqual(tsconfigOutDirs('{ "extends": "x" }', config(), root), ["dist"]);
  } finally {
    for (const [name, fn] of saved) sys[name] = fn;
  }
  assert.deepEqual(touched, []);
});

test("a malformed tsconfig lists nothing and names no output; errors about options change nothing", async () => {
  await writeFile(config(), '{ "include": ["src" ');
  assert.deepEqual(tsconfigFiles(config(), root), []);
  assert.deepEqual(await outDirs('{ "compilerOptions": { "outDir": '), []);
  // An option this TypeScript does not know (a newer compiler's) leaves the layout known.
  await writeFile(
    config(),
    '{ "include": ["src/deep"], "compilerOptions": { "notAnOption": 1, "ignoreDeprecations": "9.9" } }',
  );
  assert.deepEqual(rel(tsconfigFiles(config(), root)), ["src/deep/b.ts"]);
});

// The inherited output folder is read by the child process (tsconfig-apart.ts, needs the build).
test("TypeScript never loads in scalpel's process: not at start, not for a plain tsconfig, an extends or a file list", () => {
  const script = `
    import { createRequire } from "node:module";
    const require = createRequire(process.cwd() + "/");
    const loaded = () => Object.keys(require.cache).some((k) => k.endsWith("typescript/lib/typescript.js"));
    await import("./src/server.ts");
    const { IgnoreRules } = await import("./src/files/ignore.ts");
    const { mkdtempSync, writeFileSync } = await import("node:fs");
    const dir = mkdtempSync(require("node:os").tmpdir() + "/scalpel-lazy-ts-");
    writeFileSync(dir + "/tsconfig.json", '{ "compilerOptions": { "strict": true } }');
    const rules = new IgnoreRules(dir, []);
    rules.isIgnored("src", true);
    const before = loaded();
    writeFileSync(dir + "/tsconfig.json", '{ "compilerOptions": { "outDir": "out" } }');
    rules.refresh();
    const hidden = rules.isIgnored("out", true);
    const plain = loaded();
    writeFileSync(dir + "/base.json", '{ "compilerOptions": { "outDir": "gen" } }');
    writeFileSync(dir + "/tsconfig.json", '{ "extends": "./base.json" }');
    rules.refresh();
    const inherited = rules.isIgnored("gen", true);
    writeFileSync(dir + "/a.ts", "");
    const { tsconfigFilesApart } = await import("./language-servers/tsconfig-apart.ts");
    const listed = (await tsconfigFilesApart(dir + "/tsconfig.json", dir)).length;
    require("node:fs").rmSync(dir, { recursive: true });
    console.log(JSON.stringify({ before, plain, hidden, after: loaded(), inherited, listed }));
  `;
  const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    cwd: repoRoot,
    encoding: "utf8",
  });
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout.trim().split("\n").pop() ?? ""), {
    before: false,
    plain: false,
    hidden: true,
    after: false,
    inherited: true,
    listed: 1,
  });
});

test("a plain config's output folders read without the compiler are the compiler's", async () => {
  const texts = [
    '{ "compilerOptions": { "outDir": "../.ts", // where\n "rootDir": ".", /* "outDir": "no" */ }, }',
    '{"compilerOptions":{"outDir":"./dist/","declarationDir":"types//d"}}',
    '{"compilerOptions":{"rootDir":"a,]","outDir":"b/../c"}, "include": ["src", ], }',
    '{ "compilerOptions": { "declarationDir": "." } }',
  ];
  const ts = typescriptApi();
  const host = {
    useCaseSensitiveFileNames: true,
    readDirectory: () => [],
    fileExists: () => false,
    readFile: () => undefined,
  };
  for (const text of texts) {
    const plain = outDirsWithoutCompiler(text, config(), root);
    assert.ok(plain, text);
    const { config: json } = ts.parseConfigFileTextToJson(config(), text);
    const { outDir, declarationDir } = ts.parseJsonConfigFileContent(json, host, root).options;
    const compilers = [outDir, declarationDir]
      .filter((d): d is string => typeof d === "string")
      .map((d) => relative(root, d) || ".");
    assert.deepEqual(plain, compilers, text);
  }
  for (const text of [
    '{ "extends": "./b.json" }',
    `{ "compilerOptions": { "outDir": "$${"{"}configDir}/o" } }`,
    "{ outDir: 1 }",
  ])
    assert.equal(outDirsWithoutCompiler(text, config(), root), undefined, text);
});

test("output folders through relative extends, read without the compiler, are the compiler's", async () => {
  await put("project/configs/base.json", '{ "compilerOptions": { "outDir": "../dist" } }');
  await put(
    "project/configs/decl.json",
    '{ "compilerOptions": { "outDir": "../out2", "declarationDir": "../types" } }',
  );
  await put("project/configs/mid.json", '{ "extends": "./base", "compilerOptions": { "strict": true } }');
  const same = [
    '{ "extends": "./configs/base.json" }',
    '{ "extends": "./configs/base" }',
    '{ "extends": ["./configs/base.json", "./configs/decl.json"] }',
    '{ "extends": ["./configs/decl.json", "./configs/base.json"] }',
    '{ "extends": "./configs/base.json", "compilerOptions": { "outDir": "./build/" } }',
    '{ "extends": "./configs/mid.json", // a comment\n }',
  ];
  for (const text of same) {
    await writeFile(config(), text);
    const found = outDirsWithoutCompiler(text, config(), root);
    assert.ok(found, text);
    assert.deepEqual(found, compilerOutDirs(config(), root), text);
  }
  await put("project/configs/loop.json", '{ "extends": "../tsconfig.json" }');
  for (const text of [
    '{ "extends": "./configs/loop.json" }',
    '{ "extends": "../outside/base.json" }',
    '{ "extends": "@acme/tsconfig/lib.json" }',
    '{ "extends": "./configs/missing.json" }',
  ]) {
    await writeFile(config(), text);
    assert.equal(outDirsWithoutCompiler(text, config(), root), undefined, `left to the compiler: ${text}`);
  }
  // Real chains: rxjs 7.8.2's build configs (src/tsconfig.*.json), when the bench's copy is there.
  const rxjs = "/tmp/scalpel-bench-tokens-cache/rxjs_7.8.2/package";
  if (existsSync(rxjs))
    for (const name of [
      "tsconfig.cjs.json",
      "tsconfig.esm.json",
      "tsconfig.esm5.json",
      "tsconfig.types.json",
    ]) {
      const at = join(rxjs, "src", name);
      const text = readFileSync(at, "utf8");
      assert.deepEqual(outDirsWithoutCompiler(text, at, rxjs), compilerOutDirs(at, rxjs), name);
    }
});
