// Holds the layering of docs/architecture.md: each folder imports only the folders below it (no
// file or folder cycle), lsp/ and the adapters know nothing of projects or tools, only the
// transports touch the MCP SDK, only process/ spawns, and src/tools/ holds tools (plus its kit).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { test } from "node:test";
import {
  cycles,
  sourceFiles as files,
  folderGraph,
  importGraph,
  repoRoot as root,
  specifiers,
} from "../helpers/imports.js";

const graph = importGraph();
const importers = (pred: (target: string) => boolean) =>
  [...graph].flatMap(([f, ts]) => ts.filter(pred).map((t) => `${f} imports ${t}`));
const inFolder = (file: string, folder: string) => file.startsWith(`${folder}/`);

/** What each folder below the transports may import (besides itself and packages). */
const allowed: Record<string, readonly string[]> = {
  "src/core": [],
  "src/text": ["src/core"],
  "src/process": ["src/core"],
  "src/lsp": ["src/core", "src/text", "src/process"],
  "src/languages": ["src/core", "src/text", "src/lsp", "src/process"],
  "language-servers": ["src/core", "src/text", "src/lsp", "src/process", "src/languages"],
};

test("no import cycle between files, and none between folders", () => {
  assert.deepEqual(cycles(graph), [], "file cycles");
  assert.deepEqual(cycles(folderGraph(graph)), [], "folder cycles");
});

test("the lowest folders import only what lies below them; adapters import no project/ or symbols/", () => {
  const offenders: string[] = [];
  for (const [file, targets] of graph) {
    const folder = dirname(file);
    const may = allowed[folder];
    if (!may) continue;
    for (const t of targets) {
      const to = dirname(t);
      if (to !== folder && !may.includes(to)) offenders.push(`${file} imports ${t}`);
    }
  }
  assert.deepEqual(offenders, []);
});

test("text/ (the one reader and line model) imports only core/errors.ts", () => {
  // lsp/ and edits/ both read project text through it, so it must sit below both.
  const offenders = importers(() => true).filter((line) => {
    const [file, target] = line.split(" imports ") as [string, string];
    return inFolder(file, "src/text") && !inFolder(target, "src/text") && target !== "src/core/errors.ts";
  });
  assert.deepEqual(offenders, []);
});

test("only the transports (server.ts, http.ts) import the MCP SDK", () => {
  const users = files(join(root, "src"))
    .filter((f) => specifiers(f).some((s) => s.startsWith("@modelcontextprotocol/sdk")))
    .map((f) => relative(root, f));
  assert.deepEqual(users.sort(), ["src/http.ts", "src/server.ts"]);
});

test("only process/ spawns processes", () => {
  for (const f of [...files(join(root, "src")), ...files(join(root, "language-servers"))]) {
    if (f.includes("/src/process/")) continue;
    const text = readFileSync(f, "utf8");
    assert.ok(
      !/from\s+["'](execa|node:child_process)["']/.test(text),
      `${relative(root, f)} spawns processes`,
    );
  }
});

test("only the entry points (src/*.ts) and tools import src/tools/; resources import no tool", () => {
  const offenders = importers((t) => inFolder(t, "src/tools")).filter((line) => {
    const file = line.split(" imports ")[0]!;
    return !inFolder(file, "src/tools") && dirname(file) !== "src";
  });
  assert.deepEqual(offenders, []);
});

test("every file of src/tools/ outside its kit defines exactly one tool, and the list registers it", async () => {
  const { allTools } = await import("../../src/tools/index.js");
  const registered = new Set<unknown>(allTools);
  const offenders: string[] = [];
  for (const file of files(join(root, "src/tools"))) {
    if (dirname(file) !== join(root, "src/tools") || basename(file) === "index.ts") continue;
    // Imported by a specifier relative to this module, so that it is the same module allTools
    // holds whether the tests run from the sources (tsx) or compiled (.cache/test-js/).
    const specifier = `../../src/tools/${basename(file).replace(/\.ts$/, ".js")}`;
    const mod = (await import(specifier)) as Record<string, unknown>;
    const exported = Object.entries(mod);
    const rel = relative(root, file);
    if (exported.length !== 1) offenders.push(`${rel} exports ${exported.map(([k]) => k).join(", ")}`);
    else if (!registered.has(exported[0]![1]))
      offenders.push(`${rel}: ${exported[0]![0]} is not in allTools`);
  }
  assert.equal(registered.size, allTools.length);
  assert.deepEqual(offenders, []);
});

test("tools import no other tool (what two tools share lives in a service or the kit)", () => {
  const isTool = (f: string) => dirname(f) === "src/tools" && basename(f) !== "index.ts";
  const offenders = importers(isTool).filter((line) => isTool(line.split(" imports ")[0]!));
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

/** Files small enough to read in one go: none over 400 lines, and the median under 120 (issue 17). */
test("no file of src/ or language-servers/ is longer than 400 lines; the median is under 120", () => {
  const sizes = [...files(join(root, "src")), ...files(join(root, "language-servers"))].map((f) => ({
    rel: relative(root, f),
    lines: readFileSync(f, "utf8").split("\n").length - 1,
  }));
  const offenders = sizes.filter((f) => f.lines > 400).map((f) => `${f.rel}: ${f.lines} lines`);
  assert.deepEqual(offenders, []);
  const sorted = sizes.map((f) => f.lines).sort((a, b) => a - b);
  const median = sorted[Math.floor((sorted.length - 1) / 2)]!;
  assert.ok(median < 120, `median ${median} lines over ${sorted.length} files`);
});
