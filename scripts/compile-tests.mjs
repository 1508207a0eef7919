// Compiles the TypeScript of the tests and of what they import (src/, language-servers/, test/,
// bench/) to plain ES modules under .cache/test-js/run-PID/, one file for each, so that each test file
// runs on node alone. Why: loading tsx costs every test process ~0.2 s of CPU before the first
// test (measured: `node --import tsx -e 1` 0.27 s against 0.07 s for node), and `npm test` runs
// ~150 of them on two cores. The type check stays tsc's (`npm test` runs it); esbuild only strips
// types, which is all tsx does too.
//
// A compiled file must behave as if it ran from its source: `import.meta.url` (and `dirname`,
// `filename`) is replaced by the source file's own, so paths resolved from it — the repository
// root, fixtures, node_modules through createRequire — are the same as under tsx. Relative imports
// (`./x.js`) land on the compiled neighbour, since the tree keeps its layout.

import { readdirSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

const root = new URL("..", import.meta.url).pathname;
/** Each run compiles into a folder of its own: two runs in one checkout must not delete each other's. */
const cacheRoot = join(root, ".cache", "test-js");
const folders = ["src", "language-servers", "test", "bench"];

/** Every .ts file of the folders, fixtures left out (they are the projects the tests copy). */
function sources(dir) {
  const out = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const rel = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (rel !== join("test", "fixtures") && entry.name !== "node_modules") out.push(...sources(rel));
    } else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) out.push(rel);
  }
  return out;
}

/** `import.meta.url`, `.dirname` and `.filename` of the compiled file say where its source is. */
const sourceMeta = {
  name: "source-import-meta",
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      const text = await readFile(args.path, "utf8");
      const contents = text
        .replaceAll("import.meta.url", JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll("import.meta.dirname", JSON.stringify(dirname(args.path)))
        .replaceAll("import.meta.filename", JSON.stringify(args.path));
      return { contents, loader: "ts" };
    });
  },
};

/** Folders of runs whose process is gone (killed before it could remove its own). */
function removeAbandoned() {
  let names = [];
  try {
    names = readdirSync(cacheRoot);
  } catch {
    return;
  }
  for (const name of names) {
    // (A name that is no run's is left from an older layout: removed too.)
    const pid = Number(/^run-(\d+)$/.exec(name)?.[1]);
    if (pid === process.pid || (pid && alive(pid))) continue;
    rmSync(join(cacheRoot, name), { recursive: true, force: true });
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === "EPERM";
  }
}

/** Compiles everything into this process's folder; resolves with it and the number of files. */
export async function compileTests() {
  removeAbandoned();
  const outRoot = join(cacheRoot, `run-${process.pid}`);
  rmSync(outRoot, { recursive: true, force: true });
  const entryPoints = folders.flatMap((f) => sources(f)).map((f) => join(root, f));
  await build({
    entryPoints,
    outdir: outRoot,
    outbase: root,
    bundle: false,
    platform: "node",
    target: "node20",
    format: "esm",
    // Stack traces of a failing test name the source's lines (node reads the inline map with
    // --enable-source-maps, which the runner passes).
    sourcemap: "inline",
    plugins: [sourceMeta],
    logLevel: "warning",
  });
  return {
    count: entryPoints.length,
    /** The compiled module of one source file (a path relative to the repository). */
    pathOf: (file) => join(outRoot, file).replace(/\.ts$/, ".js"),
    remove: () => rmSync(outRoot, { recursive: true, force: true }),
  };
}
