#!/usr/bin/env node
/**
 * The `scalpel` command (dist/src/cli.js): loads the bundle (dist/src/scalpel.cjs, built from
 * cli.ts) with the V8 code cache the build made beside it. Why: every session compiles the same
 * 2.2 MB of JavaScript again; measured on a short session (start, tools/list, find_symbol, close),
 * scalpel's own CPU was 0.77 s without the cache and 0.58 s with it, and the e2e tests start ~150
 * sessions. Node 20 has no compile cache of its own (module.enableCompileCache came in 22.1).
 *
 * The cache is used only for the exact bundle it was made from: V8's own check looks at the
 * source's length, not its text, so the cache's name holds the bundle's hash. A cache V8 rejects (another
 * Node version, other flags) costs nothing but the compile it would have saved. Nothing is written
 * here at run time; `SCALPEL_CODE_CACHE_OUT` (set by scripts/bundle.mjs only) writes the cache at exit.
 */
// First, before any script is compiled: V8 checks code caches against its flags (core/heap-growth.ts).
import "./core/heap-growth.js";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Script } from "node:vm";

const here = dirname(fileURLToPath(import.meta.url));
const bundle = join(here, "scalpel.cjs");
let source: string | undefined;
const readSource = () => {
  source ??= readFileSync(bundle, "utf8");
  return source;
};
/**
 * The build's id: the bundle's hash, which the build wrote beside it with the bundle's size
 * (scripts/bundle.mjs). Hashed here only when that file is missing or names another size.
 */
function buildId(): string {
  try {
    const [id, size] = readFileSync(`${bundle}.build`, "utf8").trim().split(" ");
    if (id && /^[0-9a-f]{16}$/.test(id) && statSync(bundle).size === Number(size)) return id;
  } catch {
    // No id file (a bundle built by hand): hash it.
  }
  return createHash("sha256").update(readSource()).digest("hex").slice(0, 16);
}
const build = buildId();
const cacheFile = `${bundle}.${build}.cache`;
// Which build this is (src/core/startup.ts): a daemon of another build is never joined.
(globalThis as { scalpelBuild?: string }).scalpelBuild = build;

// `scalpel mcp` served by the daemon needs only the relay: its own small bundle (src/relay-main.ts),
// which hands anything else back to the whole CLI below.
const relayBundle = join(here, "relay.cjs");
// SCALPEL_DAEMON=0 never relays: not even the small bundle is loaded then.
if (process.argv[2] === "mcp" && process.env.SCALPEL_DAEMON !== "0" && existsSync(relayBundle)) {
  const relay = createRequire(relayBundle)(relayBundle) as { relayMain(argv: string[]): Promise<string> };
  const outcome = await relay.relayMain(process.argv.slice(2));
  if (outcome === "served") process.exit(0);
  if (outcome === "failed") process.exit(1);
  // No daemon could be reached: the whole CLI serves the session, without trying again.
  if (outcome === "in-process") process.env.SCALPEL_DAEMON = "0";
}

function cached(): Buffer | undefined {
  try {
    return readFileSync(cacheFile);
  } catch {
    return undefined;
  }
}

// The wrapper Node gives a CommonJS module; the first line (#!) is not JavaScript.
const cachedData = cached();
const script = new Script(
  `(function (exports, require, module, __filename, __dirname) {${readSource().replace(/^#!.*/, "")}\n})`,
  { filename: bundle, cachedData },
);
// What `scalpel doctor` says of the start (src/core/startup.ts reads it).
(globalThis as { scalpelCodeCache?: string }).scalpelCodeCache =
  cachedData === undefined
    ? "none for this build"
    : script.cachedDataRejected
      ? "rejected by this Node"
      : "used";
const cacheOut = process.env.SCALPEL_CODE_CACHE_OUT;
if (cacheOut === bundle) {
  // At exit, the functions the run compiled are in the cache too, not only the top level.
  process.on("exit", () => {
    writeFileSync(`${cacheFile}.tmp`, script.createCachedData());
    renameSync(`${cacheFile}.tmp`, cacheFile);
  });
}
const module = { exports: {} };
script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, here);
