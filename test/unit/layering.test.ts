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

test("tools import no other tool (what two tools share lives in a module that is not a tool)", () => {
  // The tool files are those src/tools/index.ts registers: the modules its `allTools` entries come from.
  const index = readFileSync(join(root, "src/tools/index.ts"), "utf8");
  const registered = /allTools[^=]*=\s*\[([^\]]*)\]/.exec(index)?.[1]?.match(/\w+/g) ?? [];
  const fileOf = new Map<string, string>();
  for (const m of index.matchAll(/^import\s*\{([^}]*)\}\s*from\s*["']\.\/([\w-]+)\.js["']/gm)) {
    for (const name of m[1]!.split(",").map((n) => n.replace(/^\s*type\s+/, "").trim())) {
      fileOf.set(name, `${m[2]}.ts`);
    }
  }
  const toolFiles = new Set(registered.map((name) => fileOf.get(name)));
  assert.ok(!toolFiles.has(undefined), "every registered tool is imported from a file of src/tools");
  assert.ok(toolFiles.size >= 30, `tool files found: ${[...toolFiles].join(", ")}`);
  const offenders: string[] = [];
  for (const file of toolFiles) {
    for (const spec of imports(join(root, "src/tools", file!))) {
      const target = /^\.\/([\w-]+)\.js$/.exec(spec)?.[1];
      if (target !== undefined && toolFiles.has(`${target}.ts`))
        offenders.push(`${file} imports ${target}.ts`);
    }
  }
  assert.deepEqual(offenders, []);
});

test("lsp/ names no server, in code or comments: what one server does is declared by its adapter", async () => {
  const ts = (await import("typescript")).default;
  const { probedAdapters } = await import("../../language-servers/index.js");
  // The built-in adapters' ids and language names, their servers, tools and protocol extensions.
  const names = new Set([
    ...probedAdapters.flatMap((a) => [a.id, a.displayName.split(/[\s(/]/)[0]!]).map((n) => n.toLowerCase()),
    ...["typescript", "javascript", "tsserver", "tsls", "tsc", "rust", "rustc", "rustup", "cargo"],
    ...["clippy", "flycheck", "quiescent", "dart", "flutter", "gopls", "golang", "pyright", "python"],
    ...["serverstatus", "analyzerstatus", "isanalyzing"],
  ]);
  // Found inside longer identifiers too (`tsserverRequest`, `serverStatusNotification`).
  const within = ["typescript", "javascript", "tsserver", "cargo", "flycheck", "gopls", "pyright"];
  within.push("analyzer", "serverstatus");
  // Names that are also English words count in comments only when written as a name ("Go").
  const english = new Set(["go"]);
  const found = (text: string, inComments: boolean): string[] => {
    const hits = new Set<string>();
    for (const token of text.split(/[^A-Za-z0-9]+/).filter(Boolean)) {
      const lower = token.toLowerCase();
      const parts = [
        lower,
        ...(token.match(/[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])/g) ?? []).map((p) => p.toLowerCase()),
      ];
      for (const p of parts) {
        if (!names.has(p)) continue;
        if (inComments && english.has(p) && token !== p[0]!.toUpperCase() + p.slice(1)) continue;
        hits.add(token);
      }
      for (const w of within) if (lower.includes(w)) hits.add(token);
    }
    return [...hits];
  };
  const offenders: string[] = [];
  for (const f of files(join(root, "src/lsp"))) {
    const text = readFileSync(f, "utf8");
    const source = ts.createSourceFile(f, text, ts.ScriptTarget.Latest, true);
    const code = ts.createPrinter({ removeComments: true }).printFile(source);
    const comments = new Map<number, string>();
    const visit = (node: import("typescript").Node): void => {
      for (const r of ts.getLeadingCommentRanges(text, node.pos) ?? [])
        comments.set(r.pos, text.slice(r.pos, r.end));
      for (const child of node.getChildren(source)) visit(child);
    };
    visit(source);
    const inCode = found(code, false);
    const inComments = found([...comments.values()].join("\n"), true);
    if (inCode.length > 0) offenders.push(`${relative(root, f)} code: ${inCode.join(", ")}`);
    if (inComments.length > 0) offenders.push(`${relative(root, f)} comments: ${inComments.join(", ")}`);
  }
  assert.deepEqual(offenders, []);
});
