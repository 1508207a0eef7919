// Builds the CLI as one ES module, dist/src/cli.js (the path the README and every client config
// name), straight from the TypeScript sources; `npm run typecheck` (part of `npm test`) is the type
// check. Why one file: Node 20 loads scalpel's ~180 own modules and its dependencies' ~400 one by
// one, and measured on this machine that cost a session 0.5 s of CPU before it did anything
// (`--version`: 0.95 s unbundled, 0.35 s bundled); every session and every e2e test pays it.
// TypeScript stays outside the bundle: it is loaded only when a tsconfig is read, by resolution
// from node_modules as before.
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";

const root = new URL("..", import.meta.url).pathname;
const out = join(root, "dist", "src");
// Each output is written beside the old one, then renamed over it: a session (or a test) starting
// while the build runs finds the old CLI or the new one, never none (the build used to remove dist/
// first).
const built = await build({
  write: false,
  entryPoints: [`${root}src/cli.ts`],
  outfile: join(out, "cli.js"),
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  external: ["typescript"],
  sourcemap: true,
  minifySyntax: true,
  minifyWhitespace: true,
  // Dependencies written as CommonJS call require() for Node's own modules; an ES module has none.
  banner: {
    js: "import { createRequire as __scalpelRequire } from 'node:module'; const require = __scalpelRequire(import.meta.url);",
  },
  logLevel: "warning",
});
mkdirSync(out, { recursive: true });
// The map first, so that a new cli.js never points at an old map.
for (const file of [...built.outputFiles].sort((a, b) =>
  a.path.endsWith(".map") ? -1 : b.path.endsWith(".map") ? 1 : 0,
)) {
  const tmp = `${file.path}.${process.pid}.tmp`;
  writeFileSync(tmp, file.contents, { mode: file.path.endsWith(".js") ? 0o755 : 0o644 });
  renameSync(tmp, file.path);
}
// Anything else in dist/ is left from an older build layout (tsc's one file per module).
for (const name of readdirSync(join(root, "dist")))
  if (name !== "src") rmSync(join(root, "dist", name), { recursive: true, force: true });
for (const name of readdirSync(out))
  if (name !== "cli.js" && name !== "cli.js.map" && !name.endsWith(".tmp"))
    rmSync(join(out, name), { recursive: true, force: true });
