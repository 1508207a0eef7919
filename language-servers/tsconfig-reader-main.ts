/**
 * The process that reads one tsconfig with TypeScript's config API (tsconfig-read.ts) for scalpel
 * (tsconfig-apart.ts), built as dist/src/tsconfig-reader.cjs: `<files|out-dirs> <config> <root>`,
 * the answer as JSON on stdout. Run apart so that the compiler's ~9 MB module, its code and its
 * heap never join scalpel's own process (see tsconfig-apart.ts for what that measured).
 */
// First, before TypeScript is compiled: its code cache was made with these flags.
import "../src/core/heap-growth.js";
import { compilerOutDirs, tsconfigFiles } from "./tsconfig-read.js";

const [op, config, root] = process.argv.slice(2);
if ((op !== "files" && op !== "out-dirs") || !config || !root) {
  process.stderr.write("usage: tsconfig-reader <files|out-dirs> <config> <root>\n");
  process.exit(2);
}
const answer = op === "files" ? tsconfigFiles(config, root) : compilerOutDirs(config, root);
process.stdout.write(JSON.stringify(answer));
