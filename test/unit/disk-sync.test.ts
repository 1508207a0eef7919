// Documents.syncWithDisk (src/lsp/documents.ts) against a real directory and a recording host:
// which notifications a server gets for changes made behind its back.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { FileChangeType } from "vscode-languageserver-protocol";
import { Documents } from "../../src/lsp/documents.js";
import type { WatchedChange } from "../../src/lsp/file-watcher.js";
import { pathToUri } from "../../src/lsp/uri.js";

const root = realpathSync(mkdtempSync(join(tmpdir(), "scalpel-disksync-")));
after(() => rmSync(root, { recursive: true, force: true }));

interface Sent {
  method: string;
  params: {
    changes?: { uri: string; type: number }[];
    contentChanges?: { text: string }[];
    textDocument?: { uri: string };
  };
}

function setup(saveOnSync = false, maxOpen?: number) {
  const sent: Sent[] = [];
  let clock = 0;
  const docs = new Documents(
    {
      notify: async (method, params) => {
        sent.push({ method, params: params as Sent["params"] });
      },
      languageIdFor: () => "typescript",
      tick: () => ++clock,
      onOpened: () => undefined,
      saveOnSync,
    },
    maxOpen,
  );
  return { docs, sent };
}
const everything = { wants: () => true };
const tsOnly = { wants: (p: string, t: FileChangeType) => p.endsWith(".ts") && t !== FileChangeType.Deleted };
const changes = (...list: [string, WatchedChange["change"]][]) =>
  list.map(([path, change]) => ({ path, change }));
const watched = (sent: Sent[]) =>
  sent
    .filter((s) => s.method === "workspace/didChangeWatchedFiles")
    .flatMap((s) => (s.params.changes ?? []).map((c) => [c.uri.slice(pathToUri(root).length + 1), c.type]));

test("an open document changed on disk is re-sent without any watcher event; a deleted one is closed", async () => {
  const { docs, sent } = setup();
  const a = join(root, "open.ts");
  writeFileSync(a, "one\n");
  await docs.sync(a);
  writeFileSync(a, "two, longer\n");
  const r = await docs.syncWithDisk([], undefined);
  assert.deepEqual(r.paths, [a]);
  assert.equal(sent.at(-1)?.method, "textDocument/didChange");
  assert.equal(sent.at(-1)?.params.contentChanges?.[0]?.text, "two, longer\n");
  // same size, same mtime as a stamp taken long after: trusted, not read again
  rmSync(a);
  assert.deepEqual((await docs.syncWithDisk([], undefined)).paths, [a]);
  assert.equal(sent.at(-1)?.method, "textDocument/didClose");
});

test("a same-size rewrite within the unsure window is still caught (read and compared)", async () => {
  const { docs, sent } = setup();
  const a = join(root, "same.ts");
  // A whole-second mtime, as a coarse-clock filesystem records it, identical for both writes.
  const tick = Math.floor(Date.now() / 1000);
  writeFileSync(a, "aaaa\n");
  utimesSync(a, tick, tick);
  await docs.sync(a);
  writeFileSync(a, "bbbb\n");
  utimesSync(a, tick, tick);
  await docs.syncWithDisk([], undefined);
  assert.equal(sent.at(-1)?.params.contentChanges?.[0]?.text, "bbbb\n");
});

test("files not open are announced as Created / Changed / Deleted, filtered by the registrations", async () => {
  const { docs, sent } = setup();
  const dep = join(root, "dep.ts");
  const note = join(root, "note.md");
  writeFileSync(dep, "x");
  writeFileSync(note, "n");
  await docs.syncWithDisk(changes([dep, "rename"], [note, "rename"]), tsOnly);
  assert.deepEqual(
    watched(sent),
    [["dep.ts", FileChangeType.Created]],
    "note.md is not watched by the server",
  );
  writeFileSync(dep, "xy");
  await docs.syncWithDisk(changes([dep, "change"]), tsOnly);
  assert.deepEqual(watched(sent).at(-1), ["dep.ts", FileChangeType.Changed]);
  const before = sent.length;
  await docs.syncWithDisk(changes([dep, "change"]), tsOnly);
  assert.equal(sent.length, before, "an event for a change already announced is not announced again");
  rmSync(dep);
  await docs.syncWithDisk(changes([dep, "rename"]), tsOnly);
  assert.equal(sent.length, before, "tsOnly does not want deletions");
});

test("a write scalpel announced itself (didWrite) is not announced again when its watcher event comes", async () => {
  const { docs, sent } = setup();
  const f = join(root, "written.ts");
  writeFileSync(f, "w");
  await docs.didWrite([f]);
  const before = sent.length;
  const r = await docs.syncWithDisk(changes([f, "change"]), everything);
  assert.deepEqual(r.paths, []);
  assert.equal(sent.length, before);
});

test("a deleted directory announces every file below it the server was told about", async () => {
  const { docs, sent } = setup(true);
  const dir = join(root, "gone");
  mkdirSync(dir);
  writeFileSync(join(dir, "a.ts"), "a");
  writeFileSync(join(dir, "b.ts"), "b");
  await docs.syncWithDisk(changes([join(dir, "a.ts"), "rename"], [join(dir, "b.ts"), "rename"]), everything);
  assert.deepEqual(
    sent.filter((s) => s.method === "textDocument/didSave").map((s) => s.params.textDocument?.uri),
    [pathToUri(join(dir, "a.ts")), pathToUri(join(dir, "b.ts"))],
    "with saveOnSync, announced files are also saved (a checker that runs on save must see them)",
  );
  rmSync(dir, { recursive: true });
  await docs.syncWithDisk(changes([dir, "rename"]), everything);
  assert.deepEqual(watched(sent).slice(-3), [
    ["gone/a.ts", FileChangeType.Deleted],
    ["gone/b.ts", FileChangeType.Deleted],
    ["gone", FileChangeType.Deleted],
  ]);
});

test("an overlaid document is never closed to make room: a check meanwhile sees the overlay", async () => {
  const { docs, sent } = setup(false, 2);
  const [a, b, c, d] = ["ov-a.ts", "ov-b.ts", "ov-c.ts", "ov-d.ts"].map((n) => join(root, n)) as [
    string,
    string,
    string,
    string,
  ];
  for (const p of [a, b, c, d]) writeFileSync(p, "disk\n");
  const lift = await docs.overlay(a, "unsaved\n");
  for (const p of [b, c, d]) await docs.sync(p);
  const closed = sent
    .filter((s) => s.method === "textDocument/didClose")
    .map((s) => s.params.textDocument?.uri);
  assert.equal(closed.includes(pathToUri(a)), false, JSON.stringify(closed));
  assert.deepEqual(closed, [pathToUri(b), pathToUri(c)]);
  assert.equal(docs.get(pathToUri(a))?.text, "unsaved\n");
  await lift();
  assert.equal(docs.get(pathToUri(a))?.text, "disk\n");
});
