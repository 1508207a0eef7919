/**
 * TypeScript's compiler module loaded with a V8 code cache made at build time (scripts/bundle.mjs),
 * as the CLI bundle is (src/launch.ts): compiling its 9 MB took 170–230 ms on a quiet 2-core
 * machine and 0.8–1.5 s under load, against 45–55 ms from the cache (measured, Node 20, typescript
 * 5.9.3). Where it sits: the child process that reads a tsconfig with the config API
 * (tsconfig-apart.ts), on the cold path of the native backend's first references.
 *
 * The cache is named by the package's version and the module's size (V8 itself checks only the
 * source's length, and a published version's file never changes); a cache V8 rejects (another Node)
 * costs nothing but the compile it would have saved, and none at all means a plain compile. The
 * build writes it with the same wrapper and name (scripts/bundle.mjs `typescriptCodeCache`).
 */
import { readFileSync, statSync } from "node:fs";
import { createRequire, Module } from "node:module";
import { dirname, join } from "node:path";
import { Script } from "node:vm";
import { packageRoot } from "../src/core/version.js";

/** Where the cache of this TypeScript is (or would be) kept; undefined when it cannot be told. */
export function typescriptCacheFile(): { module: string; cache: string } | undefined {
  try {
    const req = createRequire(import.meta.url);
    const module = req.resolve("typescript");
    const pkg = JSON.parse(readFileSync(join(dirname(module), "..", "package.json"), "utf8")) as {
      version: string;
    };
    const cache = join(
      packageRoot,
      "dist",
      "src",
      `typescript-${pkg.version}-${statSync(module).size}.cache`,
    );
    return { module, cache };
  } catch {
    return undefined;
  }
}

/** The wrapper Node gives a CommonJS module; the build compiles the same text. */
export const wrap = (source: string) =>
  `(function (exports, require, module, __filename, __dirname) {${source}\n})`;

/** The `typescript` module's exports, compiled with the build's code cache when there is one. */
export function loadTypescript<T>(): T {
  const where = typescriptCacheFile();
  if (!where) return createRequire(import.meta.url)("typescript") as T;
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(where.cache);
  } catch {
    cachedData = undefined;
  }
  const source = readFileSync(where.module, "utf8");
  const script = new Script(wrap(source), {
    filename: where.module,
    ...(cachedData ? { cachedData } : {}),
  });
  // A module of Node's own, in require's cache: a later `require("typescript")` gets this one.
  const module = new Module(where.module);
  module.filename = where.module;
  const req = createRequire(where.module);
  req.cache[where.module] = module;
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  try {
    run(module.exports, req, module, where.module, dirname(where.module));
  } catch (e) {
    delete req.cache[where.module];
    throw e;
  }
  module.loaded = true;
  return module.exports as T;
}
