// The project watcher (src/lsp/file-watcher.ts) on a real directory tree: what it reports after
// writes, atomic rename-over, deletes, new directories and many files at once, what it never
// enters, and how it coalesces. Each change is made by another OS process and drained at once,
// with no sleep: the drain itself must let the pending events in.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { ChangeSet, FileWatcher, type WatchedChange } from "../../src/lsp/file-watcher.js";

let root: string;
let watcher: FileWatcher;

before(async () => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "scalpel-watch-")));
  mkdirSync(join(root, "src"));
  mkdirSync(join(root, "node_modules", "pkg"), { recursive: true });
  mkdirSync(join(root, ".git"));
  mkdirSync(join(root, ".scalpel", "cache"), { recursive: true });
  writeFileSync(join(root, "src", "a.ts"), "a\n");
  watcher = new FileWatcher(root, { ignoredDirs: ["node_modules"] });
  await watcher.ready;
});

after(() => {
  watcher.close();
  rmSync(root, { recursive: true, force: true });
});

function outside(script: string, ...args: string[]): void {
  execFileSync(process.execPath, ["-e", `const fs = require('node:fs'); ${script}`, ...args]);
}

const rel = (changes: WatchedChange[]) =>
  changes
    .map((c) => [c.path.slice(root.length + 1), c.change])
    .sort((x, y) => String(x[0]).localeCompare(String(y[0])));
const paths = (changes: WatchedChange[]) => rel(changes).map(([p]) => p);

test("the ChangeSet keeps one entry per path, and a rename outranks a later change", () => {
  const s = new ChangeSet();
  s.add("/p/a", "change");
  s.add("/p/a", "change");
  s.add("/p/b", "rename");
  s.add("/p/b", "change");
  s.add("/p/a", "rename");
  assert.deepEqual(
    s.take().sort((x, y) => x.path.localeCompare(y.path)),
    [
      { path: "/p/a", change: "rename" },
      { path: "/p/b", change: "rename" },
    ],
  );
  assert.equal(s.size, 0, "take empties the set");
});

test("a write by another process is drained at once, as one coalesced change", async () => {
  outside(
    "fs.writeFileSync(process.argv[1], 'b\\n'); fs.appendFileSync(process.argv[1], 'c\\n')",
    join(root, "src", "a.ts"),
  );
  assert.deepEqual(paths(await watcher.drain()), ["src/a.ts"]);
  assert.deepEqual(await watcher.drain(), [], "nothing twice");
});

test("an atomic write (temp + rename over) reports the target as renamed", async () => {
  outside(
    "fs.writeFileSync(process.argv[1] + '.tmp', 'x\\n'); fs.renameSync(process.argv[1] + '.tmp', process.argv[1])",
    join(root, "src", "a.ts"),
  );
  const got = rel(await watcher.drain());
  assert.ok(
    got.some(([p, c]) => p === "src/a.ts" && c === "rename"),
    JSON.stringify(got),
  );
});

test("a delete is reported", async () => {
  writeFileSync(join(root, "src", "gone.ts"), "g\n");
  await watcher.drain();
  outside("fs.rmSync(process.argv[1])", join(root, "src", "gone.ts"));
  assert.deepEqual(rel(await watcher.drain()), [["src/gone.ts", "rename"]]);
});

test("files written into a directory created at the same moment are all reported, and it is watched from then on", async () => {
  outside(
    "fs.mkdirSync(process.argv[1] + '/x/y', { recursive: true }); fs.writeFileSync(process.argv[1] + '/x/y/deep.ts', 'd'); fs.writeFileSync(process.argv[1] + '/x/top.ts', 't')",
    join(root, "src"),
  );
  const got = paths(await watcher.drain());
  for (const p of ["src/x/y/deep.ts", "src/x/top.ts"]) assert.ok(got.includes(p), `${p} in ${got}`);
  outside("fs.writeFileSync(process.argv[1], 'again')", join(root, "src", "x", "y", "deep.ts"));
  assert.deepEqual(paths(await watcher.drain()), ["src/x/y/deep.ts"]);
});

test("a checkout of many files at once is reported in full", async () => {
  outside(
    "for (let i = 0; i < 300; i++) fs.writeFileSync(process.argv[1] + '/f' + i + '.ts', 'v' + i)",
    join(root, "src"),
  );
  const got = new Set(paths(await watcher.drain()));
  for (let i = 0; i < 300; i++) assert.ok(got.has(`src/f${i}.ts`), `src/f${i}.ts`);
});

test("ignored directories are watched shallowly (a new package shows), version control and .scalpel not at all", async () => {
  outside(
    "fs.writeFileSync(process.argv[1] + '/node_modules/pkg/i.js', 'i'); fs.writeFileSync(process.argv[1] + '/.git/index', 'i'); fs.mkdirSync(process.argv[1] + '/.scalpel/cache/symbols'); fs.writeFileSync(process.argv[1] + '/.scalpel/cache/symbols/a.json.tmp', 'i'); fs.writeFileSync(process.argv[1] + '/.scalpel/journal.json', 'i'); fs.mkdirSync(process.argv[1] + '/node_modules/newpkg/lib', { recursive: true }); fs.writeFileSync(process.argv[1] + '/node_modules/newpkg/lib/n.js', 'n')",
    root,
  );
  const got = paths(await watcher.drain());
  assert.deepEqual(
    got,
    ["node_modules/newpkg"],
    "only the new package directory, nothing inside packages, .git or .scalpel",
  );
  outside(
    "fs.mkdirSync(process.argv[1] + '/node_modules/@types/x', { recursive: true }); fs.writeFileSync(process.argv[1] + '/node_modules/@types/x/index.d.ts', 'i')",
    root,
  );
  assert.deepEqual(paths(await watcher.drain()), ["node_modules/@types"]);
  outside("fs.mkdirSync(process.argv[1] + '/node_modules/@types/y')", root);
  assert.deepEqual(
    paths(await watcher.drain()),
    ["node_modules/@types/y"],
    "a scoped package appearing later",
  );
});

test("watches() names the directories whose changes are reported: none before the first scan or after close", async () => {
  const w = new FileWatcher(root, { ignoredDirs: ["node_modules"] });
  assert.equal(w.watches(root), false, "before the first scan is done, a change may go unseen");
  await w.ready;
  assert.equal(w.watches(root), true);
  assert.equal(w.watches(join(root, "src")), true);
  assert.equal(w.watches(join(root, "node_modules")), true, "a heavy directory's own entries are reported");
  assert.equal(w.watches(join(root, "node_modules", "pkg")), false, "nothing below its top");
  assert.equal(w.watches(join(root, ".git")), false);
  w.close();
  assert.equal(w.watches(root), false);
});

test("past the cap a folder is not watched, said once, and watches() tells which", async () => {
  const said: string[] = [];
  const w = new FileWatcher(root, {
    ignoredDirs: ["node_modules"],
    maxDirs: 2,
    onError: (m) => said.push(m),
  });
  await w.ready;
  assert.equal(w.watchedDirCount, 2);
  assert.equal(w.watches(root), true, "the root is watched first");
  const unwatched = ["src", "node_modules", "lib"].filter((d) => !w.watches(join(root, d)));
  assert.ok(unwatched.length > 0, "some folder is past the cap");
  assert.equal(said.length, 1, said.join("\n"));
  assert.match(said[0]!, /watching the first 2 folders only \(SCALPEL_MAX_WATCHES\)/);
  w.close();
});
