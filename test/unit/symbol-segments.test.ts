// The symbol table's rows off the JS heap (symbols/segment.ts, key-table.ts, tables.ts): rows come
// back equal after a restart, the lookup in the paths files picks the same files the in-memory
// strings did, a needle across two scan windows is found, a replaced row's bytes are compacted
// away, and a forged or torn index folder costs rows — never a read out of place, a hang, or a throw.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { DocumentSymbol } from "vscode-languageserver-protocol";
import { log } from "../../src/core/log.js";
import { Sandbox } from "../../src/security/sandbox.js";
import { serverKey, symbolIndexFolder } from "../../src/symbols/index-store.js";
import { KeyTable, loadKeyTable } from "../../src/symbols/key-table.js";
import { parseNamePath } from "../../src/symbols/name-path.js";
import { FileBlob, maxRecordBytes } from "../../src/symbols/segment.js";
import { pathsMayMatch, readSymbols, rowTexts } from "../../src/symbols/table.js";
import { SymbolTables } from "../../src/symbols/tables.js";

let dir: string;
before(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "scalpel-segments-")));
});
after(() => rm(dir, { recursive: true, force: true }));

const key = serverKey({ adapter: "ts", version: "1", settings: [] });
const old = { size: 10, mtimeMs: Date.now() - 60_000 };

function sym(name: string, children: DocumentSymbol[] = [], detail?: string): DocumentSymbol {
  const range = { start: { line: 0, character: 0 }, end: { line: 0, character: name.length } };
  return { name, kind: 5, range, selectionRange: range, children, ...(detail ? { detail } : {}) };
}

/** File i: a Core with compute in every tenth file, a Noise with compute in the others, a helper of its own. */
function symbolsOf(i: number): DocumentSymbol[] {
  const owner = i % 10 === 0 ? "Core" : `Noise${i}`;
  return [sym(owner, [sym("compute")]), sym(`helper${i}`), sym(`filler${i}_${i % 3}`)];
}

const patterns: [string, boolean][] = [
  ["Core/compute", false],
  ["compute", false],
  ["/Core", false],
  ["/compute", false],
  ["helper7", false],
  ["helper1", true],
  ["oise1", true],
  ["nothing", false],
];

test("rows come back equal after a restart, and the lookup picks the files the strings did", async () => {
  const sandbox = new Sandbox(dir);
  const first = new SymbolTables(sandbox, true, log);
  const rows = await first.table(key);
  for (let i = 0; i < 300; i++) first.record(key, `src/m${i}.ts`, `h${i}`, old, symbolsOf(i), false, false);
  // A rewritten file: only its last row counts (the first one's bytes stay in the segment).
  first.record(key, "src/m7.ts", "h7b", old, [sym("renamed7")], false, false);
  const expect = (p: string, sub: boolean) =>
    [...Array(300).keys()]
      .filter((i) => {
        const list = i === 7 ? [sym("renamed7")] : symbolsOf(i);
        return pathsMayMatch(rowTexts(list).paths.toString("utf8"), parseNamePath(p), sub);
      })
      .map((i) => `src/m${i}.ts`);
  const found = (tables: SymbolTables, all: ReadonlyMap<string, unknown>, p: string, sub: boolean) => {
    const may = tables.matcher(parseNamePath(p), sub);
    return [...all.entries()]
      .filter(([, e]) => may(e as never))
      .map(([rel]) => rel)
      .sort((a, b) => Number(a.slice(5, -3)) - Number(b.slice(5, -3)));
  };
  for (const [p, sub] of patterns) assert.deepEqual(found(first, rows, p, sub), expect(p, sub), p);
  // A scan of a few files reads their rows' paths instead: the same answer.
  for (const [p, sub] of patterns) {
    const may = first.matcher(parseNamePath(p), sub, 10);
    const few = [...rows.entries()].filter(([, e]) => may(e)).map(([rel]) => rel);
    assert.deepEqual(few.sort(), expect(p, sub).sort(), p);
  }
  await first.save();

  const second = new SymbolTables(sandbox, true, log);
  const again = await second.table(key);
  assert.equal(again.size, 300);
  assert.equal(again.get("src/m7.ts")?.hash, "h7b");
  assert.deepEqual(second.symbolsOf(again.get("src/m42.ts")!), first.symbolsOf(rows.get("src/m42.ts")!));
  assert.deepEqual(
    second.symbolsOf(again.get("src/m42.ts")!)?.map((s) => s.name),
    ["Noise42", "helper42", "filler42_0"],
  );
  for (const [p, sub] of patterns) assert.deepEqual(found(second, again, p, sub), expect(p, sub), p);
  // Written by the second process after loading: looked at on its own, not missed.
  second.record(key, "src/new.ts", "hn", old, [sym("Core", [sym("compute")])], false, false);
  const may = second.matcher(parseNamePath("Core/compute"), false);
  assert.equal(may(again.get("src/new.ts")!), true);
  assert.equal(second.store.stats.corrupt, 0);
});

test("a needle across the seam of two scan windows is found, and one past the end is not", async () => {
  const path = join(dir, "seam.paths");
  const blob = FileBlob.open(path, true)!;
  const seam = 1024 * 1024;
  blob.append(Buffer.alloc(seam - 3, "x"));
  blob.append(Buffer.from("/Core/compute\n"));
  blob.append(Buffer.alloc(100, "y"));
  assert.equal(blob.find(Buffer.from("/Core/compute\n"), 0), seam - 3);
  assert.equal(blob.find(Buffer.from("/Core/compute\n"), seam - 2), -1);
  assert.equal(blob.read(seam - 3, 5)?.toString(), "/Core");
  assert.equal(blob.read(blob.size - 1, 2), null);
  assert.equal(blob.read(-1, 2), null);
  assert.equal(blob.read(0, maxRecordBytes + 1), null);
  blob.close();
});

test("replaced rows are compacted away; every live row reads back", async () => {
  const folder = join(dir, "compact");
  await mkdir(folder);
  const table = new KeyTable(folder, log);
  const big = "d".repeat(100_000);
  for (let round = 0; round < 60; round++)
    for (let f = 0; f < 3; f++)
      table.set(`src/f${f}.ts`, `h${round}`, old, [sym(`f${f}r${round}`, [], big)], false);
  const before = (await readdir(folder)).length;
  assert.equal(before, 2, "one segment: a paths and a symbols file");
  table.compactIfWasteful();
  const files = await readdir(folder);
  assert.equal(files.length, 2);
  assert.notDeepEqual(files, before);
  assert.equal(table.segs.length, 1);
  assert.ok(table.segs[0]!.syms.size < 400_000, String(table.segs[0]!.syms.size));
  for (let f = 0; f < 3; f++)
    assert.equal(readSymbols(table.rows.get(`src/f${f}.ts`)!)?.[0]?.name, `f${f}r59`);
});

test("a forged or torn index folder costs rows, never a read out of place, a hang or a throw", async () => {
  const folder = join(dir, "forged");
  await mkdir(folder);
  const table = new KeyTable(folder, log);
  for (let i = 0; i < 4; i++) table.set(`src/g${i}.ts`, `h${i}`, old, symbolsOf(i), false);
  const stored = table.stored();
  const [name] = stored.segs;
  const row = stored.rows["src/g1.ts"]!;
  const forged = {
    segs: [...stored.segs, "../escape", "fifo", "link"],
    rows: {
      ...stored.rows,
      "src/far.ts": [row[0], 1, 1, 0, row[4], row[5], 1e12, 10, row[8]],
      "src/neg.ts": [row[0], 1, 1, 0, -5, 10, 0, 10, row[8]],
      "src/huge.ts": [row[0], 1, 1, 0, 0, 10, 0, 2 ** 40, row[8]],
      "src/noseg.ts": [row[0], 1, 1, 9, 0, 10, 0, 10, row[8]],
      "src/escape.ts": [row[0], 1, 1, 1, 0, 10, 0, 10, row[8]],
      "src/fifo.ts": [row[0], 1, 1, 2, 0, 10, 0, 10, row[8]],
      "src/link.ts": [row[0], 1, 1, 3, 0, 10, 0, 10, row[8]],
      "../outside.ts": row,
      "src/short.ts": [row[0], 1],
      "src/text.ts": "not a row",
    },
  } as never;
  execFileSync("mkfifo", [join(folder, "fifo.paths")]);
  await writeFile(join(folder, "fifo.syms"), "");
  await writeFile(join(dir, "outside.paths"), "\n/Core/compute\n");
  await symlink(join(dir, "outside.paths"), join(folder, "link.paths"));
  await writeFile(join(folder, "link.syms"), "[]");
  const loaded = loadKeyTable(folder, forged, log);
  assert.deepEqual([...loaded.rows.keys()].sort(), ["src/g0.ts", "src/g1.ts", "src/g2.ts", "src/g3.ts"]);
  assert.equal(loaded.segs.length, 1);
  // A torn or edited symbols file fails the row's checksum: the row is not used.
  const syms = join(folder, `${name}.syms`);
  const bytes = await readFile(syms);
  bytes[loaded.rows.get("src/g2.ts")!.symsAt + 3] = 0x21;
  await writeFile(syms, bytes);
  const torn = loadKeyTable(folder, stored, log);
  assert.equal(readSymbols(torn.rows.get("src/g2.ts")!), null);
  assert.deepEqual(
    readSymbols(torn.rows.get("src/g3.ts")!)?.map((s) => s.name),
    ["Noise3", "helper3", "filler3_0"],
  );
});

test("a read-only project's rows stay in memory: nothing is written", async () => {
  const ro = await realpath(await mkdtemp(join(tmpdir(), "scalpel-segments-ro-")));
  try {
    const sandbox = new Sandbox(ro);
    const tables = new SymbolTables(sandbox, false, log);
    const rows = await tables.table(key);
    tables.record(key, "src/a.ts", "ha", old, symbolsOf(0), false, false);
    await tables.save();
    assert.deepEqual(
      tables.symbolsOf(rows.get("src/a.ts")!)?.map((s) => s.name),
      ["Core", "helper0", "filler0_0"],
    );
    assert.equal(tables.matcher(parseNamePath("Core/compute"), false)(rows.get("src/a.ts")!), true);
    assert.deepEqual(await readdir(ro), []);
    await assert.rejects(readdir(symbolIndexFolder(ro)));
  } finally {
    await rm(ro, { recursive: true, force: true });
  }
});
