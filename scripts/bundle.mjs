// Builds the CLI as one ES module, dist/src/cli.js (the path the README and every client config
// name), straight from the TypeScript sources; `npm run typecheck` (part of `npm test`) is the type
// check. Why one file: Node 20 loads scalpel's ~180 own modules and its dependencies' ~400 one by
// one, and measured on this machine that cost a session 0.5 s of CPU before it did anything
// (`--version`: 0.95 s unbundled, 0.35 s bundled); every session and every e2e test pays it.
// TypeScript stays outside the bundle: it is loaded only when a tsconfig is read, by resolution
// from node_modules as before.
import { rmSync } from "node:fs";
import { build } from "esbuild";

const root = new URL("..", import.meta.url).pathname;
rmSync(`${root}dist`, { recursive: true, force: true });
await build({
  entryPoints: [`${root}src/cli.ts`],
  outfile: `${root}dist/src/cli.js`,
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
