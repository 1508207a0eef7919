// The symbol index store on a real temp project: entries survive a new store (a restart), are used
// only for the exact text they were built from, fail closed on corruption, stay whole when two
// stores (two scalpel processes) write the same entries at once, and a read-only store writes
// nothing.
import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { DocumentSymbol } from "vscode-languageserver-protocol";
import { Sandbox } from "../../src/security/sandbox.js";
import { type IndexedSession, SymbolIndexStore, symbolIndexDir } from "../../src/symbols/index-store.js";

let dir: string;
before(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "scalpel-index-")));
});
after(() => rm(dir, { recursive: true, force: true }));

const session = (version: string): IndexedSession => ({
  serverInfo: { name: "fake-ls", version },
  spec: { launch: { command: "fake-ls", args: [] } },
});

function sym(name: string): DocumentSymbol {
  const range = { start: { line: 0, character: 0 }, end: { line: 0, character: name.length } };
  return { name, kind: 12, range, selectionRange: range, children: [] };
}

/** Waits until the background writes of `put` reached the disk. */
async function settle(
  store: SymbolIndexStore,
  s: IndexedSession,
  rel: string,
  text: string,
  symbols: DocumentSymbol[],
) {
  await store.symbols(s, "ts", rel, text, async () => symbols);
  await new Promise((r) => setTimeout(r, 50));
}

test("an entry survives a new store and is used only for the text it was built from", async () => {
  const first = new SymbolIndexStore(new Sandbox(dir), true);
  await settle(first, session("1"), "src/a.ts", "function a() {}", [sym("a")]);
  assert.equal(first.stats.requested, 1);

  const second = new SymbolIndexStore(new Sandbox(dir), true);
  let asked = 0;
  const again = await second.symbols(session("1"), "ts", "src/a.ts", "function a() {}", async () => {
    asked++;
    return [];
  });
  assert.deepEqual(
    again.map((s) => s.name),
    ["a"],
  );
  assert.equal(asked, 0);
  assert.deepEqual(second.stats, { reused: 1, requested: 0, corrupt: 0 });
  // Other text, or another server version: not found.
  assert.equal(await second.lookup(session("1"), "ts", "src/a.ts", "function b() {}"), null);
  assert.equal(
    await new SymbolIndexStore(new Sandbox(dir), true).lookup(
      session("2"),
      "ts",
      "src/a.ts",
      "function a() {}",
    ),
    null,
  );
});

test("a corrupt entry is reported once, not used, and rebuilt", async () => {
  const store = new SymbolIndexStore(new Sandbox(dir), true);
  await settle(store, session("1"), "src/c.ts", "const c = 1;", [sym("c")]);
  const [key] = await readdir(join(dir, symbolIndexDir));
  const folder = join(dir, symbolIndexDir, key!);
  for (const name of await readdir(folder)) {
    const text = await readFile(join(folder, name), "utf8");
    if (text.includes('"src/c.ts"')) await writeFile(join(folder, name), text.replace('"c"', '"x"'));
  }
  const reader = new SymbolIndexStore(new Sandbox(dir), true);
  assert.equal(await reader.lookup(session("1"), "ts", "src/c.ts", "const c = 1;"), null);
  assert.equal(await reader.lookup(session("1"), "ts", "src/c.ts", "const c = 1;"), null);
  assert.equal(reader.stats.corrupt, 1);
  await settle(reader, session("1"), "src/c.ts", "const c = 1;", [sym("c")]);
  const fresh = new SymbolIndexStore(new Sandbox(dir), true);
  assert.deepEqual(
    (await fresh.lookup(session("1"), "ts", "src/c.ts", "const c = 1;"))?.map((s) => s.name),
    ["c"],
  );
});

test("two stores writing the same entries at once leave whole entries and no temp files", async () => {
  const one = new SymbolIndexStore(new Sandbox(dir), true);
  const two = new SymbolIndexStore(new Sandbox(dir), true);
  await Promise.all(
    Array.from({ length: 20 }, (_, i) => i).flatMap((i) => [
      one.put("k-race", `src/f${i % 3}.ts`, `h${i}`, [sym(`one${i}`)]),
      two.put("k-race", `src/f${i % 3}.ts`, `h${i}`, [sym(`two${i}`)]),
    ]),
  );
  const folder = join(dir, symbolIndexDir, "k-race");
  const names = await readdir(folder);
  assert.equal(names.length, 3, names.join(", "));
  const reader = new SymbolIndexStore(new Sandbox(dir), true);
  for (const name of names) {
    // Whichever write came last, the entry is whole and passes its checksum.
    const raw = JSON.parse(await readFile(join(folder, name), "utf8")) as { rel: string; hash: string };
    const got = await reader.get("k-race", raw.rel, raw.hash);
    assert.ok(got?.[0]?.name.endsWith(raw.hash.slice(1)), `${name}: ${JSON.stringify(got)}`);
  }
  assert.equal(reader.stats.corrupt, 0);
});

test("a read-only store keeps its entries in memory and writes nothing", async () => {
  const ro = await realpath(await mkdtemp(join(tmpdir(), "scalpel-index-ro-")));
  try {
    const store = new SymbolIndexStore(new Sandbox(ro), false);
    await settle(store, session("1"), "src/a.ts", "x", [sym("a")]);
    assert.notEqual(await store.lookup(session("1"), "ts", "src/a.ts", "x"), null);
    assert.deepEqual(await readdir(ro), []);
  } finally {
    await rm(ro, { recursive: true, force: true });
  }
});
