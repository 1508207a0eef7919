// Builds the CLI straight from the TypeScript sources; `npm run typecheck` (part of `npm test`) is
// the type check. Four files in dist/src:
// - scalpel.cjs: all of scalpel in one module. Why one: Node 20 loads scalpel's ~180 own modules and
//   its dependencies' ~400 one by one, and measured on this machine that cost a session 0.5 s of
//   CPU before it did anything (`--version`: 0.95 s unbundled, 0.35 s bundled). CommonJS, because
//   only a script (not an ES module) can be compiled with a V8 code cache on Node 20.
// - scalpel.cjs.<hash>.cache: that code cache, made here by one run of the CLI (src/launch.ts).
// - relay.cjs: what a `scalpel mcp` session served by the daemon loads instead (src/relay-main.ts).
// - cli.js: the command itself (the path the README and every client config name), src/launch.ts.
// - tsconfig-reader.cjs: the child process that reads a tsconfig with TypeScript's config API
//   (language-servers/tsconfig-apart.ts), so that the compiler never loads in scalpel's own.
// TypeScript stays outside the bundles: it is loaded only when a tsconfig is read, by resolution
// from node_modules as before.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";

const root = new URL("..", import.meta.url).pathname;
const out = join(root, "dist", "src");
const common = {
  write: false,
  bundle: true,
  platform: "node",
  target: "node20",
  sourcemap: true,
  minifySyntax: true,
  minifyWhitespace: true,
  logLevel: "warning",
};
/** Both CommonJS bundles: scalpel.cjs (everything) and relay.cjs (a daemon session's relay). */
const cjs = {
  ...common,
  format: "cjs",
  // The sources are ES modules: `import.meta.url` (the bundle's own location, from which the
  // package root and node_modules are found) is the bundle file's URL.
  define: { "import.meta.url": "__scalpelModuleUrl" },
  banner: { js: "var __scalpelModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
};
const withTypescript = {
  external: ["typescript"],
  // jsonc-parser's `main` is a UMD build whose factory requires its own files by computed
  // names, which a bundle cannot follow (the built CLI failed with "Cannot find module
  // './impl/format'"); its ES module build bundles like any source.
  alias: { "jsonc-parser": "jsonc-parser/lib/esm/main.js" },
};
const [scalpel, launcher, relay, tsconfigReader] = await Promise.all([
  build({ ...cjs, ...withTypescript, entryPoints: [`${root}src/cli.ts`], outfile: join(out, "scalpel.cjs") }),
  build({ ...common, entryPoints: [`${root}src/launch.ts`], outfile: join(out, "cli.js"), format: "esm" }),
  build({ ...cjs, entryPoints: [`${root}src/relay-main.ts`], outfile: join(out, "relay.cjs") }),
  build({
    ...cjs,
    ...withTypescript,
    entryPoints: [`${root}language-servers/tsconfig-reader-main.ts`],
    outfile: join(out, "tsconfig-reader.cjs"),
  }),
]);
mkdirSync(out, { recursive: true });
// The build's id (its bundle's hash) and the bundle's size, for src/launch.ts: a session start need
// not read and hash 2.3 MB to learn it (15–20 ms of a fresh process). Written before the bundle, so
// that a start during the build sees either a size that does not match (and hashes) or the new pair.
const bundleText = scalpel.outputFiles.find((f) => f.path.endsWith(".cjs"))?.text ?? "";
const buildId = createHash("sha256").update(bundleText).digest("hex").slice(0, 16);
writeFileSync(
  join(out, `scalpel.cjs.build.${process.pid}.tmp`),
  `${buildId} ${Buffer.byteLength(bundleText)}\n`,
);
renameSync(join(out, `scalpel.cjs.build.${process.pid}.tmp`), join(out, "scalpel.cjs.build"));
// Each output is written beside the old one, then renamed over it: a session (or a test) starting
// while the build runs finds the old CLI or the new one, never none. Maps first, so that new code
// never points at an old map; the bundle before the command that loads it.
const files = [
  ...scalpel.outputFiles,
  ...relay.outputFiles,
  ...tsconfigReader.outputFiles,
  ...launcher.outputFiles,
].sort((a, b) => Number(b.path.endsWith(".map")) - Number(a.path.endsWith(".map")));
for (const file of files) {
  const tmp = `${file.path}.${process.pid}.tmp`;
  writeFileSync(tmp, file.contents, { mode: file.path.endsWith(".map") ? 0o644 : 0o755 });
  renameSync(tmp, file.path);
}

// The code cache: one run of the CLI that loads and evaluates every module (`tools` lists every
// definition) writes it at exit, with the functions that run compiled.
const home = mkdtempSync(join(tmpdir(), "scalpel-build-"));
const warm = spawnSync(process.execPath, [join(out, "cli.js"), "tools"], {
  env: { ...process.env, SCALPEL_HOME: home, SCALPEL_CODE_CACHE_OUT: join(out, "scalpel.cjs") },
  encoding: "utf8",
});
rmSync(home, { recursive: true, force: true });
if (warm.status !== 0) {
  process.stderr.write(`bundle: the built CLI failed its first run (exit ${warm.status}):\n${warm.stderr}\n`);
  process.exit(1);
}

// TypeScript's own code cache (language-servers/typescript-code-cache.ts reads it: same wrapper,
// same name), made by a run that reads a tsconfig with the config API, then checked to be accepted.
const typescriptCache = typescriptCodeCache();
// Anything else in dist/ is left from an older build (tsc's one file per module, an ES module
// bundle, the cache of an older bundle).
const cacheName = `scalpel.cjs.${buildId}.cache`;
const kept = new Set([
  "cli.js",
  "cli.js.map",
  "scalpel.cjs",
  "scalpel.cjs.map",
  "scalpel.cjs.build",
  "relay.cjs",
  "relay.cjs.map",
  "tsconfig-reader.cjs",
  "tsconfig-reader.cjs.map",
  cacheName,
  typescriptCache,
]);
if (!readdirSync(out).includes(cacheName)) {
  process.stderr.write(`bundle: the first run of the built CLI wrote no code cache (${cacheName})\n`);
  process.exit(1);
}
for (const name of readdirSync(join(root, "dist")))
  if (name !== "src") rmSync(join(root, "dist", name), { recursive: true, force: true });
for (const name of readdirSync(out))
  if (!kept.has(name) && !name.endsWith(".tmp")) rmSync(join(out, name), { recursive: true, force: true });

function typescriptCodeCache() {
  const script = `
    const { readFileSync, renameSync, statSync, writeFileSync, existsSync } = require("node:fs");
    const { dirname, join } = require("node:path");
    const { Script } = require("node:vm");
    const { createRequire } = require("node:module");
    const [out, root] = process.argv.slice(1);
    const module_ = createRequire(join(root, "package.json")).resolve("typescript");
    const version = JSON.parse(readFileSync(join(dirname(module_), "..", "package.json"), "utf8")).version;
    const name = "typescript-" + version + "-" + statSync(module_).size + ".cache";
    const source = readFileSync(module_, "utf8");
    const wrapped = "(function (exports, require, module, __filename, __dirname) {" + source + "\\n})";
    const cacheFile = join(out, name);
    const cachedData = process.env.CHECK === "1" ? readFileSync(cacheFile) : undefined;
    const compiled = new Script(wrapped, { filename: module_, ...(cachedData ? { cachedData } : {}) });
    const m = { exports: {} };
    compiled.runInThisContext()(m.exports, createRequire(module_), m, module_, dirname(module_));
    const ts = m.exports;
    const host = { useCaseSensitiveFileNames: true, readDirectory: () => [], fileExists: () => false, readFile: () => undefined };
    const { config } = ts.readConfigFile("/x/tsconfig.json", () => '{ "extends": "./b.json", "compilerOptions": { "outDir": "o" }, "include": ["src"] }');
    ts.parseJsonConfigFileContent(config, host, "/x", undefined, "/x/tsconfig.json");
    if (process.env.CHECK === "1") {
      if (compiled.cachedDataRejected) { console.error("rejected"); process.exit(1); }
    } else {
      writeFileSync(cacheFile + ".tmp", compiled.createCachedData());
      renameSync(cacheFile + ".tmp", cacheFile);
    }
    console.log(name);
  `;
  // Made and checked with the V8 flags scalpel runs with (src/core/heap-growth.ts): V8 rejects a
  // code cache made under other flags.
  const flags = /heapFlags = "([^"]+)"/.exec(
    readFileSync(join(root, "src/core/heap-growth.ts"), "utf8"),
  )?.[1];
  if (!flags) throw new Error("bundle: no heapFlags in src/core/heap-growth.ts");
  const run = (check) =>
    spawnSync(process.execPath, [...flags.split(" "), "-e", script, out, root], {
      env: { ...process.env, CHECK: check ? "1" : "0" },
      encoding: "utf8",
    });
  const made = run(false);
  const checked = made.status === 0 ? run(true) : made;
  if (checked.status !== 0) {
    process.stderr.write(
      `bundle: TypeScript's code cache could not be made or was rejected:\n${checked.stderr}\n`,
    );
    process.exit(1);
  }
  return checked.stdout.trim();
}
