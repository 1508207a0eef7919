/**
 * The writer's per-file locks: compare-and-write is one step, so parallel edits computed against
 * the same text never overwrite each other (one lands, the others are stale edit_conflicts).
 */
import assert from "node:assert/strict";
import { mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { applyPlan, applyRecomputed } from "../../src/edits/apply.js";
import { lockedFileCount, withFileLocks } from "../../src/edits/file-locks.js";
import { isStaleConflict } from "../../src/edits/file-state.js";
import { MemoryStore } from "../../src/memory/store.js";
import { Sandbox } from "../../src/security/sandbox.js";
import { positionAt, readTextFile } from "../../src/text/positions.js";

describe("per-file locks", () => {
  let dir: string;
  before(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), "scalpel-locks-")));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test("holders of one file run one at a time", async () => {
    const log: string[] = [];
    const job = (name: string, ms: number) =>
      withFileLocks([join(dir, "a")], async () => {
        log.push(`${name}+`);
        await sleep(ms);
        log.push(`${name}-`);
      });
    await Promise.all([job("1", 30), job("2", 1), job("3", 10)]);
    // Never interleaved: each start is followed by its own end.
    for (let i = 0; i < log.length; i += 2)
      assert.equal(log[i + 1], log[i]!.replace("+", "-"), log.join(" "));
    assert.equal(log.length, 6);
    assert.equal(lockedFileCount(), 0, "no lock is left behind");
  });

  test("different files do not wait for each other", async () => {
    // x holds its lock until y has run: if y waited for x, this would time out.
    let yDone!: () => void;
    const yRan = new Promise<void>((r) => {
      yDone = r;
    });
    await Promise.all([
      withFileLocks([join(dir, "x")], () =>
        Promise.race([yRan, sleep(5000).then(() => assert.fail("y waited for x's lock"))]),
      ),
      withFileLocks([join(dir, "y")], async () => yDone()),
    ]);
  });

  test("many files in opposite orders cannot deadlock", async () => {
    const a = join(dir, "p");
    const b = join(dir, "q");
    let n = 0;
    const jobs = Array.from({ length: 40 }, (_, i) =>
      withFileLocks(i % 2 ? [a, b] : [b, a], async () => {
        n++;
        await sleep(1);
      }),
    );
    await Promise.race([Promise.all(jobs), sleep(5000).then(() => assert.fail("deadlock"))]);
    assert.equal(n, 40);
  });

  test("a symlink and its target share one lock (keyed by real path)", async () => {
    await writeFile(join(dir, "real.txt"), "x");
    await symlink(join(dir, "real.txt"), join(dir, "alias.txt"));
    const log: string[] = [];
    await Promise.all([
      withFileLocks([join(dir, "real.txt")], async () => {
        log.push("r+");
        await sleep(30);
        log.push("r-");
      }),
      withFileLocks([join(dir, "alias.txt")], async () => {
        log.push("a+");
        log.push("a-");
      }),
    ]);
    // Not interleaved, whichever came first.
    assert.ok(log.join(" ") === "r+ r- a+ a-" || log.join(" ") === "a+ a- r+ r-", log.join(" "));
  });

  test("a throwing holder releases its lock", async () => {
    await assert.rejects(
      withFileLocks([join(dir, "t")], async () => {
        throw new Error("boom");
      }),
      /boom/,
    );
    await withFileLocks([join(dir, "t")], async () => {});
    assert.equal(lockedFileCount(), 0);
  });

  test("parallel applyPlans computed against one text: one lands, the rest are stale conflicts, none is lost", async () => {
    const sandbox = new Sandbox(dir);
    const path = sandbox.resolve("code.ts");
    const original = "function a() {}\r\nfunction b() {}\r\nfunction c() {}\r\n";
    await writeFile(path.abs, original);
    const { text } = await readTextFile(path.abs);
    const names = ["a", "b", "c"];
    const results = await Promise.allSettled(
      names.map((n) => {
        const at = text.indexOf(`${n}() {}`) + 6;
        const p = positionAt(text, at);
        return applyPlan(
          [
            {
              kind: "edit",
              path,
              edits: [{ range: { start: p, end: p }, newText: ` return "${n}"; ` }],
              expectedText: text,
            },
          ],
          { dryRun: false },
        );
      }),
    );
    const landed = results.filter((r) => r.status === "fulfilled").length;
    assert.equal(landed, 1, "exactly one edit computed against the old text may land");
    for (const r of results)
      if (r.status === "rejected") assert.ok(isStaleConflict(r.reason), String(r.reason));
    const after = await readFile(path.abs, "utf8");
    assert.equal(
      (after.match(/return "/g) ?? []).length,
      landed,
      `every reported edit is on disk:\n${after}`,
    );
  });
  test("a plan recomputed under the lock cannot go stale: 10 parallel read-modify-writes all land", async () => {
    const sandbox = new Sandbox(dir);
    const path = sandbox.resolve("counter.txt");
    await writeFile(path.abs, "0\r");
    const bump = () =>
      applyRecomputed(
        [path],
        async () => {
          const { text } = await readTextFile(path.abs);
          await sleep(2); // a language server round trip would be here
          const end = positionAt(text, text.indexOf("\r"));
          const next = String(Number(text.slice(0, text.indexOf("\r"))) + 1);
          return [
            {
              kind: "edit",
              path,
              edits: [{ range: { start: { line: 0, character: 0 }, end }, newText: next }],
              expectedText: text,
            },
          ];
        },
        { dryRun: false },
      );
    await Promise.all(Array.from({ length: 10 }, bump));
    assert.equal(await readFile(path.abs, "utf8"), "10\r");
  });
  test("memory updates take the same lock: 10 parallel appends to one memory all land", async () => {
    const store = new MemoryStore(new Sandbox(dir), ".scalpel/memories");
    await store.write("notes", "start\n");
    await Promise.all(Array.from({ length: 10 }, (_, i) => store.update("notes", (c) => `${c}line ${i}\n`)));
    const { content } = await store.read("notes");
    assert.equal(content.split("\n").filter((l) => l.startsWith("line ")).length, 10, content);
  });
});
