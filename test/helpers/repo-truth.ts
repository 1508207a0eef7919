/**
 * Fixtures for "the answer tells the truth about the repository": a pnpm workspace whose manifests
 * point at build outputs, and a project with a tracked `build/` folder of sources. Built at test
 * time because a `.gitignore` inside test/fixtures would hide fixture files from this repository.
 */
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

export async function put(root: string, rel: string, text: string): Promise<void> {
  const abs = join(root, rel);
  await mkdir(dirname(abs), { recursive: true });
  await writeFile(abs, text);
}

/** pnpm workspace: manifests name `dist/` outputs that were never built; sources live in `src/`. */
export async function writePnpmWorkspace(root: string): Promise<void> {
  await put(
    root,
    "package.json",
    JSON.stringify({
      name: "demo",
      private: true,
      main: "./distribution/index.js",
      scripts: { build: "tsc -b", test: "vitest run", lint: "biome check ." },
    }),
  );
  await put(root, "pnpm-lock.yaml", "lockfileVersion: '9.0'\n");
  await put(root, "pnpm-workspace.yaml", "packages:\n  - '.'\n  - 'packages/*'\n  - '!packages/ignored-*'\n");
  await put(root, "README.md", "# demo\n");
  await put(
    root,
    "packages/a/package.json",
    JSON.stringify({
      name: "demo-a",
      main: "dist/index.js",
      exports: {
        ".": { import: "./dist/index.mjs", require: "./dist/index.cjs" },
        "./package.json": "./package.json",
      },
      bin: { "demo-a": "dist/cli.js" },
      scripts: { test: "vitest run", build: "tsc -p ." },
    }),
  );
  await put(root, "packages/a/src/index.ts", "export function hello(): string {\n  return 'hi';\n}\n");
  await put(root, "packages/b/package.json", JSON.stringify({ name: "demo-b", bin: "bin/run.js" }));
  await put(root, "packages/b/bin/run.js", "console.log('run');\n");
  await put(root, "packages/ignored-c/package.json", JSON.stringify({ name: "demo-c", main: "index.js" }));
  await put(root, "packages/ignored-c/index.js", "\n");
}

/**
 * Path-looking tokens of a text (`a/b`, `x.json`, `src/`) that do not exist under `root`: an
 * answer that names files must name real ones.
 */
export function missingPaths(root: string, text: string): string[] {
  const tokens =
    text.match(/[\w.@-]+(?:\/[\w.@-]*)+|[\w-]+\.(?:json|ya?ml|ts|tsx|js|cjs|mjs|md|lock|lockb|toml)\b/g) ??
    [];
  return [...new Set(tokens)].filter((t) => !existsSync(join(root, t.replace(/\/+$/, ""))));
}
