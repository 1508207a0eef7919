/**
 * The process that reads a tsconfig with TypeScript's config API (tsconfig-read.ts) for scalpel
 * (tsconfig-apart.ts), built as dist/src/tsconfig-reader.cjs. Run apart so that the compiler's
 * ~9 MB module, its code and its heap never join scalpel's own process (see tsconfig-apart.ts).
 * - `<files|out-dirs> <config> <root>`: one read, the answer as JSON on stdout.
 * - `serve`: loads the compiler at once, then answers the one request of its first stdin line
 *   (`{"op","config","root"}`) the same way and exits; it also exits when stdin ends or after
 *   `idleMs` without a request, so a reader started ahead and never used goes by itself.
 */
// First, before TypeScript is compiled: its code cache was made with these flags.
import "../src/core/heap-growth.js";
import { compilerOutDirs, tsconfigFiles, typescriptApi } from "./tsconfig-read.js";

const idleMs = 60_000;

function answer(op: unknown, config: unknown, root: unknown): string | undefined {
  if ((op !== "files" && op !== "out-dirs") || typeof config !== "string" || typeof root !== "string")
    return undefined;
  return JSON.stringify(op === "files" ? tsconfigFiles(config, root) : compilerOutDirs(config, root));
}

function serve(): void {
  typescriptApi();
  const idle = setTimeout(() => process.exit(0), idleMs);
  let line = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk: string) => {
    line += chunk;
    const end = line.indexOf("\n");
    if (end < 0) return;
    let out: string | undefined;
    try {
      const req = JSON.parse(line.slice(0, end)) as { op?: unknown; config?: unknown; root?: unknown };
      out = answer(req.op, req.config, req.root);
    } catch {
      out = undefined;
    }
    // Let go of stdin and the timer and let the process end by itself: an exit right after the
    // write cut a large answer at the pipe's 64 KiB.
    clearTimeout(idle);
    process.stdin.destroy();
    process.exitCode = out === undefined ? 2 : 0;
    process.stdout.write(out ?? "");
  });
  process.stdin.on("end", () => process.exit(0));
}

const [op, config, root] = process.argv.slice(2);
if (op === "serve") serve();
else {
  const out = answer(op, config, root);
  if (out === undefined) {
    process.stderr.write("usage: tsconfig-reader <files|out-dirs> <config> <root> | serve\n");
    process.exit(2);
  }
  process.stdout.write(out);
}
