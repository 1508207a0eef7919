// The symbol index store on a real temp project: entries survive a new store (a restart), are used
// only for the exact text they were built from, fail closed on corruption, are removed when their
// file leaves, stay whole when two stores (two scalpel processes) write the same entries at once,
// the table snapshot is checksummed, and a read-only store writes nothing.
import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { DocumentSymbol } from "vscode-languageserver-protocol";
import { Sandbox } from "../../src/security/sandbox.js";
import {
  SymbolIndexStore,
  serverKey,
  symbolIndexFolder,
  type TableRow,
  tableFileName,
  textHash,
} from "../../src/symbols/index-store.js";

let dir: string;
before(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "scalpel-index-")));
});
after(() => rm(dir, { recursive: true, force: true }));

const key = (version: string) =>
  serverKey({ adapter: "ts", version, settings: [{ command: "fake-ls", args: [] }] });

function sym(name: string): DocumentSymbol {
  const range = { start: { line: 0, character: 0 }, end: { line: 0, character: name.length } };
  return { name, kind: 12, range, selectionRange: range, children: [] };
}

test("an entry survives a new store and is used only for the text it was built from", async () => {
  const first = new SymbolIndexStore(new Sandbox(dir), true);
  await first.put(key("1"), "src/a.ts", textHash("function a() {}"), [sym("a")]);

  const second = new SymbolIndexStore(new Sandbox(dir), true);
  const again = await second.get(key("1"), "src/a.ts", textHash("function a() {}"));
  assert.deepEqual(
    again?.map((s) => s.name),
    ["a"],
  );
  // Other text, or another server version: not found.
  assert.equal(await second.get(key("1"), "src/a.ts", textHash("function b() {}")), null);
  assert.equal(
    await new SymbolIndexStore(new Sandbox(dir), true).get(key("2"), "src/a.ts", textHash("function a() {}")),
    null,
  );
  assert.equal(second.stats.corrupt, 0);
});

test("a corrupt entry is reported once, not used, and rebuilt", async () => {
  const store = new SymbolIndexStore(new Sandbox(dir), true);
  const hash = textHash("const c = 1;");
  await store.put(key("1"), "src/c.ts", hash, [sym("c")]);
  const folder = join(symbolIndexFolder(new Sandbox(dir).root), key("1"));
  for (const name of await readdir(folder)) {
    const text = await readFile(join(folder, name), "utf8");
    if (text.includes('"src/c.ts"')) await writeFile(join(folder, name), text.replace('"c"', '"x"'));
  }
  const reader = new SymbolIndexStore(new Sandbox(dir), true);
  assert.equal(await reader.get(key("1"), "src/c.ts", hash), null);
  assert.equal(await reader.get(key("1"), "src/c.ts", hash), null);
  assert.equal(reader.stats.corrupt, 1);
  await reader.put(key("1"), "src/c.ts", hash, [sym("c")]);
  const fresh = new SymbolIndexStore(new Sandbox(dir), true);
  assert.deepEqual(
    (await fresh.get(key("1"), "src/c.ts", hash))?.map((s) => s.name),
    ["c"],
  );
});

test("a removed entry is gone from the disk and counted as pruned", async () => {
  const store = new SymbolIndexStore(new Sandbox(dir), true);
  const hash = textHash("export const gone = 1;");
  await store.put(key("1"), "src/gone.ts", hash, [sym("gone")]);
  assert.notEqual(await store.get(key("1"), "src/gone.ts", hash), null);
  await store.remove(key("1"), "src/gone.ts");
  assert.equal(await new SymbolIndexStore(new Sandbox(dir), true).get(key("1"), "src/gone.ts", hash), null);
  assert.equal(store.stats.pruned, 1);
});

test("the table snapshot round-trips and a tampered one is refused", async () => {
  const store = new SymbolIndexStore(new Sandbox(dir), true);
  const rows: Record<string, TableRow> = { "src/t.ts": ["h1", 10, 12345, 0, 0, 3, 0, 2, "s1"] };
  await store.saveTable(key("t"), { segs: ["seg-a"], rows });
  assert.deepEqual(await new SymbolIndexStore(new Sandbox(dir), true).loadTable(key("t")), {
    segs: ["seg-a"],
    rows,
  });
  const path = join(symbolIndexFolder(new Sandbox(dir).root), key("t"), tableFileName);
  const good = await readFile(path, "utf8");
  for (const forged of [
    good.replace('"h1"', '"h2"'),
    good.replace('"seg-a"', '"seg-b"'),
    good.slice(0, -9),
  ]) {
    await writeFile(path, forged);
    const reader = new SymbolIndexStore(new Sandbox(dir), true);
    assert.equal(await reader.loadTable(key("t")), null, forged);
    assert.equal(reader.stats.corrupt, 1);
  }
  // A snapshot of another format is not used, and not called corrupt: the entries rebuild it.
  await writeFile(path, JSON.stringify({ v: 4, sum: "x", rows: {} }));
  const older = new SymbolIndexStore(new Sandbox(dir), true);
  assert.equal(await older.loadTable(key("t")), null);
  assert.equal(older.stats.corrupt, 0);
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
  const folder = join(symbolIndexFolder(new Sandbox(dir).root), "k-race");
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

test("a read-only store writes nothing (its table keeps the rows: symbol-segments.test.ts)", async () => {
  const ro = await realpath(await mkdtemp(join(tmpdir(), "scalpel-index-ro-")));
  try {
    const store = new SymbolIndexStore(new Sandbox(ro), false);
    await store.put(key("1"), "src/a.ts", textHash("x"), [sym("a")]);
    await store.saveTable(key("1"), { segs: [], rows: {} });
    assert.equal(await store.get(key("1"), "src/a.ts", textHash("x")), null);
    assert.deepEqual(await readdir(ro), []);
  } finally {
    await rm(ro, { recursive: true, force: true });
  }
});
