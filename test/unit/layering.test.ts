// Holds the layering of design.md: lsp/ never imports upward, and only the two transports
// (server.ts for stdio, http.ts for Streamable HTTP) touch the MCP SDK (the wrapper stays SDK-free
// so the terminal path is identical).
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";

const root = new URL("../..", import.meta.url).pathname;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const full = join(dir, n);
    return statSync(full).isDirectory() ? files(full) : n.endsWith(".ts") ? [full] : [];
  });
}

function imports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/^\s*(?:import|export)[^"']*?from\s+["']([^"']+)["']/gm)].map((m) => m[1]!);
}

test("lsp/ imports nothing from the layers above it", () => {
  for (const f of files(join(root, "src/lsp"))) {
    for (const spec of imports(f)) {
      assert.ok(
        !/\/(tools|project|memory|symbols|edits|security)\//.test(spec) &&
          !/\.\.\/(server|workspace|cli)\.js$/.test(spec),
        `${relative(root, f)} imports ${spec}`,
      );
    }
  }
});

test("text/ (the one reader and line model) imports only errors.ts", () => {
  // lsp/ and edits/ both read project text through it, so it must sit below both.
  for (const f of files(join(root, "src/text"))) {
    for (const spec of imports(f)) {
      if (!spec.startsWith(".")) continue;
      assert.ok(
        spec === "../errors.js" || /^\.\/[\w-]+\.js$/.test(spec),
        `${relative(root, f)} imports ${spec}`,
      );
    }
  }
});

test("only the transports (server.ts, http.ts) import the MCP SDK", () => {
  const users = files(join(root, "src"))
    .filter((f) => imports(f).some((s) => s.startsWith("@modelcontextprotocol/sdk")))
    .map((f) => relative(root, f));
  assert.deepEqual(users.sort(), ["src/http.ts", "src/server.ts"]);
});

test("only lsp/ spawns processes", () => {
  for (const f of [...files(join(root, "src")), ...files(join(root, "language-servers"))]) {
    if (f.includes("/src/lsp/")) continue;
    const text = readFileSync(f, "utf8");
    assert.ok(
      !/from\s+["'](execa|node:child_process)["']/.test(text),
      `${relative(root, f)} spawns processes`,
    );
  }
});
