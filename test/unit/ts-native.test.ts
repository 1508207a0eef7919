/** The TypeScript 7 native backend's pure parts: backend choice, import bindings, tsconfig file lists. */
import { strict as assert } from "node:assert";
import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { type DocumentSymbol, SymbolKind } from "vscode-languageserver-protocol";
import { tsconfigFiles } from "../../language-servers/tsconfig-read.js";
import { majorOf, typescriptBackend } from "../../language-servers/typescript-backend.js";
import { dropImportBindings } from "../../language-servers/typescript-native.js";

async function tempDir(): Promise<{ dir: string; done: () => Promise<void> }> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), "scalpel-ts-native-")));
  return { dir, done: () => rm(dir, { recursive: true, force: true }) };
}

test("majorOf reads versions and ranges", () => {
  assert.equal(majorOf("7.0.2"), 7);
  assert.equal(majorOf("^7.1.0"), 7);
  assert.equal(majorOf(">=7"), 7);
  assert.equal(majorOf("~5.9.3"), 5);
  assert.equal(majorOf("npm:typescript@7.0.2"), 7);
  assert.equal(majorOf("latest"), 0);
});

test("the backend: project.yml, then SCALPEL_TS_BACKEND, then the installed TypeScript, then package.json", async () => {
  const { dir, done } = await tempDir();
  try {
    const none = {};
    assert.equal(typescriptBackend(dir, undefined, none).backend, "tsserver");
    await writeFile(join(dir, "package.json"), JSON.stringify({ devDependencies: { typescript: "^7.0.0" } }));
    assert.deepEqual(typescriptBackend(dir, undefined, none), {
      backend: "native",
      why: "package.json devDependencies has typescript ^7.0.0",
    });
    assert.equal(typescriptBackend(dir, "tsserver", none).backend, "tsserver");
    assert.equal(typescriptBackend(dir, undefined, { SCALPEL_TS_BACKEND: "tsserver" }).backend, "tsserver");
    // What is installed wins over what package.json asks for (a stale install runs 5.x).
    await mkdir(join(dir, "node_modules", "typescript"), { recursive: true });
    await writeFile(
      join(dir, "node_modules", "typescript", "package.json"),
      JSON.stringify({ version: "5.9.3" }),
    );
    assert.equal(typescriptBackend(dir, undefined, none).backend, "tsserver");
    assert.equal(typescriptBackend(dir, "native", none).backend, "native");
  } finally {
    await done();
  }
});

const sym = (
  name: string,
  line: number,
  character: number,
  kind: SymbolKind = SymbolKind.Variable,
): DocumentSymbol => {
  const range = { start: { line, character }, end: { line, character: character + name.length } };
  return { name, kind, range, selectionRange: range };
};

test("import bindings and re-exports are dropped; declarations stay", () => {
  const text = [
    'import { a, type B } from "./b.js";',
    'import * as ns from "./b.js";',
    "import def, {",
    "  b as bee,",
    '} from "./b.js";',
    'export { a as reA } from "./b.js";',
    "export const x = a;",
    'import fs = require("fs");',
  ].join("\n");
  const symbols = [
    sym("a", 0, 9),
    sym("B", 0, 12),
    sym("ns", 1, 7),
    sym("def", 2, 7),
    sym("bee", 3, 2),
    sym("reA", 5, 9),
    sym("x", 6, 13),
    sym("fs", 7, 7),
  ];
  assert.deepEqual(
    dropImportBindings(symbols, text).map((s) => s.name),
    ["x"],
  );
});

test("tsconfigFiles lists what include/exclude/files name, and nothing when extends is a package", async () => {
  const { dir, done } = await tempDir();
  try {
    for (const f of [
      "src/a.ts",
      "src/deep/b.tsx",
      "src/c.js",
      "src/gen/d.ts",
      "test/t.ts",
      "node_modules/x/i.ts",
    ]) {
      await mkdir(join(dir, f, ".."), { recursive: true });
      await writeFile(join(dir, f), "");
    }
    const config = join(dir, "tsconfig.json");
    await writeFile(
      config,
      '{ // comment\n "include": ["./src"], "exclude": ["src/gen"], "files": ["test/t.ts"], }',
    );
    const rel = () =>
      tsconfigFiles(config, dir)
        .map((f) => f.slice(dir.length + 1))
        .sort();
    assert.deepEqual(rel(), ["src/a.ts", "src/deep/b.tsx", "test/t.ts"]);
    await writeFile(config, '{ "compilerOptions": { "allowJs": true } }');
    assert.deepEqual(rel(), ["src/a.ts", "src/c.js", "src/deep/b.tsx", "src/gen/d.ts", "test/t.ts"]);
    await writeFile(join(dir, "base.json"), '{ "include": ["src"], "exclude": ["src/deep"] }');
    await writeFile(config, '{ "extends": "./base" }');
    assert.deepEqual(rel(), ["src/a.ts", "src/gen/d.ts"]);
    await writeFile(config, '{ "extends": "@tsconfig/node20/tsconfig.json" }');
    assert.deepEqual(rel(), []);
  } finally {
    await done();
  }
});
