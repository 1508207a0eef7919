import * as assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { DocumentSymbol, Location } from "vscode-languageserver-protocol";
import { typescriptAdapter } from "../../language-servers/typescript.js";
import { normalizeTypescriptSymbols } from "../../language-servers/typescript-symbols.js";
import { log } from "../../src/core/log.js";
import { LspSession } from "../../src/lsp/session.js";
import { uriToPath } from "../../src/lsp/uri.js";
import { groupAlive, liveServerGroups } from "../../src/process/spawn.js";
import { buildTree, type SymbolNode } from "../../src/symbols/tree.js";

const shapes = `export interface Shape {
  kind: string;
}

export function area(s: Shape): number {
  return s.kind.length;
}

export class Circle implements Shape {
  kind = "circle";
  total(list: Shape[]): number {
    return list.map((x) => area(x)).reduce((a, b) => a + b, 0);
  }
  bump(): void {
    [1].forEach(function () {
      const inner = 1;
      void inner;
    });
  }
}
`;
const use = `import { area, Circle } from "./shapes.js";

export const one = area(new Circle());
export const two = area({ kind: "square" });
`;

let root: string;
let session: LspSession;
const file = (name: string) => join(root, "src", name);

/** Zero-based position of the first occurrence of `needle` (plus `offset` characters). */
function position(text: string, needle: string, offset = 0): { line: number; character: number } {
  const at = text.indexOf(needle);
  assert.ok(at >= 0, `anchor ${needle} not found`);
  const before = text.slice(0, at + offset).split("\n");
  return { line: before.length - 1, character: before.at(-1)?.length ?? 0 };
}

before(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "scalpel-tsls-")));
  mkdirSync(join(root, "src"));
  writeFileSync(
    join(root, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        noEmit: true,
      },
      include: ["src"],
    }),
  );
  writeFileSync(file("shapes.ts"), shapes);
  writeFileSync(file("use.ts"), use);
  const spec = typescriptAdapter.spec(root);
  if ("missing" in spec) throw new Error(spec.missing);
  session = new LspSession(spec, root, log);
  session.start();
});

after(async () => {
  await session?.shutdown();
  rmSync(root, { recursive: true, force: true });
});

test("references across two files are complete on the first request after start", async () => {
  const doc = await session.sync(file("shapes.ts"));
  const params = {
    textDocument: { uri: doc.uri },
    position: position(shapes, "area("),
    context: { includeDeclaration: true },
  };
  const first = await session.request<Location[]>("textDocument/references", params);
  const warm = await session.request<Location[]>("textDocument/references", params);
  const where = (locs: Location[]) =>
    locs
      .map((l) => `${uriToPath(l.uri).slice(root.length)}:${l.range.start.line}:${l.range.start.character}`)
      .sort();
  // Declaration + call in shapes.ts; import + two calls in use.ts (which was never opened).
  assert.equal(first.length, 5, where(first).join(" "));
  assert.deepEqual(where(first), where(warm));
  assert.equal(where(first).filter((w) => w.includes("use.ts")).length, 3);
});

test("documentSymbol after sync is hierarchical; the symbol tree drops callbacks with their locals, sorts", async () => {
  const doc = await session.sync(file("shapes.ts"));
  const raw = await session.request<DocumentSymbol[]>("textDocument/documentSymbol", {
    textDocument: { uri: doc.uri },
  });
  const circle = raw.find((s) => s.name === "Circle");
  assert.ok(circle?.children && circle.children.length > 0, "hierarchical");
  const names = (syms: DocumentSymbol[]): unknown[] =>
    syms.map((s) => (s.children?.length ? { [s.name]: names(s.children) } : s.name));
  // Observed: tsserver names callbacks after their callee and sorts children by name.
  const rawText = JSON.stringify(names(raw));
  assert.match(rawText, /forEach\(\) callback/);
  assert.match(rawText, /list\.map\(\) callback/);
  const tree = (nodes: SymbolNode[]): unknown[] =>
    nodes.map((n) => (n.children.length ? { [n.name]: tree(n.children) } : n.name));
  // `inner` is declared by bump's forEach() callback: no symbol (issue #9).
  assert.deepEqual(tree(buildTree(normalizeTypescriptSymbols(raw))), [
    { Shape: ["kind"] },
    "area",
    { Circle: ["kind", "total", "bump"] },
  ]);
});

test("diagnostics report a type error and then that it is fixed after a change on disk", async () => {
  const path = file("use.ts");
  const clean = await session.diagnostics(path);
  assert.equal(clean.complete, true);
  assert.deepEqual(clean.diagnostics, []);

  writeFileSync(path, `${use}export const bad: number = "text";\n`);
  const broken = await session.diagnostics(path);
  assert.equal(broken.complete, true);
  assert.equal(broken.diagnostics.length, 1);
  assert.match(String(broken.diagnostics[0]?.message), /not assignable to type 'number'/);

  writeFileSync(path, use);
  const fixed = await session.diagnostics(path);
  assert.equal(fixed.complete, true);
  assert.deepEqual(fixed.diagnostics, []);
});

test("errors caused by another file's change are reported after didWrite", async () => {
  const path = file("use.ts");
  assert.deepEqual((await session.diagnostics(path)).diagnostics, []);
  writeFileSync(file("shapes.ts"), shapes.replace("export function area(", "export function areaOf("));
  await session.didWrite([file("shapes.ts")]);
  const after = await session.diagnostics(path);
  assert.ok(
    after.diagnostics.some((d) => /area/.test(String(d.message))),
    JSON.stringify(after.diagnostics),
  );
  writeFileSync(file("shapes.ts"), shapes);
  await session.didWrite([file("shapes.ts")]);
  assert.deepEqual((await session.diagnostics(path)).diagnostics, []);
});

test("onDiskChange tells of scalpel's writes and of other processes' changes, as a sync takes them", async () => {
  const told: string[] = [];
  const stop = session.onDiskChange((paths) => told.push(...paths));
  await session.sync(file("use.ts"));
  assert.equal(session.watches(join(root, "src")), true, "tsls registers file watchers: the tree is watched");
  told.length = 0;
  await session.didWrite([file("use.ts")]);
  assert.ok(told.includes(file("use.ts")), JSON.stringify(told));
  told.length = 0;
  execFileSync(process.execPath, [
    "-e",
    "require('fs').writeFileSync(process.argv[1], '// new\\n')",
    file("late.ts"),
  ]);
  await session.sync(file("use.ts"));
  assert.ok(told.includes(file("late.ts")), JSON.stringify(told));
  const heard = told.length;
  stop();
  rmSync(file("late.ts"));
  await session.sync(file("use.ts"));
  assert.equal(told.length, heard, "a stopped listener hears nothing more");
});

test("shutdown leaves no process alive", async () => {
  const pid = session.pid;
  assert.ok(pid !== undefined);
  await session.shutdown();
  assert.equal(session.status, "stopped");
  assert.equal(groupAlive(pid), false, "no live process left in the server's group");
  assert.ok(!liveServerGroups().includes(pid));
});
