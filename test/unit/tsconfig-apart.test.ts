/**
 * tsconfigs read in a child process (language-servers/tsconfig-apart.ts): the answer is the
 * in-process compiler read's (tsconfig-read.ts) on real configs — this repository's own, the
 * fixtures', rxjs 7.8.2's `extends` chains when the bench's copy is there — and TypeScript is never
 * loaded in the asking process (tsconfig-read.test.ts checks that in a process of its own). Needs
 * the build (dist/src/tsconfig-reader.cjs).
 */
import { strict as assert } from "node:assert";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import {
  prewarmTsconfigReader,
  tsconfigFilesApart,
  tsconfigOutDirsApart,
} from "../../language-servers/tsconfig-apart.js";
import { tsconfigFiles, tsconfigOutDirs } from "../../language-servers/tsconfig-read.js";
import { repoRoot } from "../helpers/fixtures.js";
import { commandOf, descendants } from "../helpers/mcp.js";

const rxjs = "/tmp/scalpel-bench-tokens-cache/rxjs_7.8.2/package";

/**
 * [config, root] pairs: this repository's own (one extends the other), a fixture's, and rxjs's
 * root config and `extends` chains. Each read starts a process: a few cover the plumbing; the
 * in-process reader's own tests cover the reading.
 */
function configs(): Array<[string, string]> {
  const projects = join(repoRoot, "test", "fixtures", "ts-projects");
  const out: Array<[string, string]> = [
    [join(repoRoot, "tsconfig.json"), repoRoot],
    [join(repoRoot, "tsconfig.test.json"), repoRoot],
    [join(projects, "packages", "extra", "tsconfig.json"), projects],
  ];
  if (existsSync(rxjs))
    for (const rel of ["tsconfig.json", "src/tsconfig.cjs.json", "src/tsconfig.types.json"])
      out.push([join(rxjs, rel), rxjs]);
  return out;
}

test("a child process reads the same files and output folders as the compiler in-process", async () => {
  assert.ok(existsSync(join(repoRoot, "dist", "src", "tsconfig-reader.cjs")), "run `npm run build` first");
  const all = configs();
  const apart = await Promise.all(
    all.map(async ([config, root]) => ({
      files: await tsconfigFilesApart(config, root),
      outDirs: tsconfigOutDirsApart(readFileSync(config, "utf8"), config, root),
    })),
  );
  for (const [i, [config, root]] of all.entries()) {
    const here = {
      files: tsconfigFiles(config, root),
      outDirs: tsconfigOutDirs(readFileSync(config, "utf8"), config, root),
    };
    assert.deepEqual(apart[i], here, config);
  }
  if (existsSync(rxjs)) {
    // The extends chain reached the child: src/tsconfig.cjs.json's outDir and its base's files.
    const cjs = all.findIndex(([c]) => c.endsWith("tsconfig.cjs.json"));
    assert.deepEqual(apart[cjs]?.outDirs, ["../dist/cjs"]);
    assert.ok((apart[cjs]?.files.length ?? 0) > 100);
  }
});

test("a config the child cannot read leaves the file list unknown; outside the root, nothing is read", async () => {
  const base = await realpath(await mkdtemp(join(tmpdir(), "scalpel-tsconfig-apart-")));
  try {
    const root = join(base, "project");
    await mkdir(join(root, "src"), { recursive: true });
    await writeFile(join(root, "src", "a.ts"), "");
    await writeFile(join(base, "base.json"), '{ "compilerOptions": { "outDir": "../project/src" } }');
    await writeFile(join(root, "tsconfig.json"), '{ "extends": "../base.json" }');
    const text = readFileSync(join(root, "tsconfig.json"), "utf8");
    assert.deepEqual(await tsconfigFilesApart(join(root, "tsconfig.json"), root), []);
    assert.deepEqual(tsconfigOutDirsApart(text, join(root, "tsconfig.json"), root), []);
    await writeFile(join(root, "tsconfig.json"), "{ not json");
    assert.deepEqual(await tsconfigFilesApart(join(root, "tsconfig.json"), root), []);
    assert.deepEqual(await tsconfigFilesApart(join(root, "missing.json"), root), []);
  } finally {
    await rm(base, { recursive: true, force: true });
  }
});

test("a reader started ahead answers the next read with the same files, then is gone", async () => {
  const readers = () =>
    descendants(process.pid).filter((p) => commandOf(p).includes("tsconfig-reader.cjs serve"));
  const [config, root] = [join(repoRoot, "tsconfig.test.json"), repoRoot];
  prewarmTsconfigReader();
  prewarmTsconfigReader();
  const started = readers();
  assert.equal(started.length, 1, "one reader at a time");
  assert.deepEqual(await tsconfigFilesApart(config, root), tsconfigFiles(config, root));
  assert.deepEqual(
    readers().filter((p) => started.includes(p)),
    [],
    "the warm reader answered and exited",
  );
});
