import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, realpath, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { isAppError } from "../../src/core/errors.js";
import type { Logger } from "../../src/core/log.js";
import { applyPlan } from "../../src/edits/apply.js";
import { EditJournal, journalFiles, journalFolder, undoPlan } from "../../src/edits/journal.js";
import { Sandbox } from "../../src/security/sandbox.js";
import { SecretRules } from "../../src/security/secrets.js";

/** A logger that keeps its warnings, to check that corrupt entries are reported. */
function recordingLog(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  const log: Logger & { warnings: string[] } = {
    warnings,
    debug: () => {},
    info: () => {},
    warn: (m) => warnings.push(m),
    error: () => {},
    child: () => log,
  };
  return log;
}

describe("undo journal", () => {
  let dir: string;
  let sandbox: Sandbox;
  before(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), "scalpel-journal-")));
    sandbox = new Sandbox(dir);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  async function edit(journal: EditJournal, id: string, rel: string, newText: string) {
    const path = sandbox.resolve(rel);
    const r = await applyPlan(
      [
        {
          kind: "edit",
          path,
          edits: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 3 } }, newText }],
        },
      ],
      { dryRun: false },
    );
    await journal.record({ id, tool: "test", files: journalFiles(sandbox, r.before, r.after) });
  }

  async function undo(journal: EditJournal, id?: string) {
    const entry = await journal.pick(id);
    await applyPlan(undoPlan(entry), { dryRun: false });
    await journal.markUndone(entry.id);
  }

  test("restores a CRLF file with a BOM byte for byte, latest edit first", async () => {
    const original = "\uFEFFone\r\ntwo\r\n";
    await writeFile(join(dir, "a.ts"), original);
    const journal = new EditJournal(sandbox, { dir: null });
    await edit(journal, "e1", "a.ts", "uno");
    await edit(journal, "e2", "a.ts", "ein");
    assert.equal((await journal.pick(undefined)).id, "e2");
    await undo(journal);
    assert.equal(await readFile(join(dir, "a.ts"), "utf8"), "\uFEFFuno\r\ntwo\r\n");
    await undo(journal);
    assert.equal(await readFile(join(dir, "a.ts"), "utf8"), original);
    await assert.rejects(journal.pick(undefined), /no edit to undo/);
  });

  test("a lone-CR file is restored exactly (it used to gain duplicated lines)", async () => {
    const original = "one\rtwo\rthree\r";
    await writeFile(join(dir, "cr.txt"), original);
    const journal = new EditJournal(sandbox, { dir: null });
    await edit(journal, "e1", "cr.txt", "ONE\nand more");
    assert.equal(await readFile(join(dir, "cr.txt"), "utf8"), "ONE\rand more\rtwo\rthree\r");
    await undo(journal);
    assert.equal(await readFile(join(dir, "cr.txt"), "utf8"), original);
  });

  test("refuses, writing nothing, when the file changed since the edit", async () => {
    await writeFile(join(dir, "b.ts"), "abc\n");
    const journal = new EditJournal(sandbox, { dir: null });
    await edit(journal, "e1", "b.ts", "xyz");
    await writeFile(join(dir, "b.ts"), "xyz\nchanged by someone else\n");
    await assert.rejects(
      applyPlan(undoPlan(await journal.pick("e1")), { dryRun: false }),
      (e) => isAppError(e) && e.code === "edit_conflict",
    );
    assert.equal(await readFile(join(dir, "b.ts"), "utf8"), "xyz\nchanged by someone else\n");
  });

  test("a BOM-only change is a change: undo compares bytes, not text", async () => {
    await writeFile(join(dir, "bom.ts"), "abc\n");
    const journal = new EditJournal(sandbox, { dir: null });
    await edit(journal, "e1", "bom.ts", "xyz");
    // Same text, a BOM added by another program: not what the edit wrote.
    await writeFile(join(dir, "bom.ts"), "\uFEFFxyz\n");
    await assert.rejects(
      applyPlan(undoPlan(await journal.pick("e1")), { dryRun: false }),
      (e) => isAppError(e) && e.code === "edit_conflict",
    );
  });

  test("persists in the project's state folder under $SCALPEL_HOME, not in the work tree, and undoes after a restart", async () => {
    await writeFile(join(dir, "p.ts"), "aaa\r\nbbb\r\n");
    const first = new EditJournal(sandbox);
    await edit(first, "e0a", "p.ts", "111");
    await edit(first, "e0b", "p.ts", "222");
    const folder = journalFolder(sandbox.root);
    assert.ok(!folder.startsWith(dir), "outside the project");
    assert.equal((await stat(folder)).mode & 0o777, 0o700, "the user's alone");
    assert.equal((await readdir(folder)).filter((n) => n.endsWith(".json")).length, 2);
    assert.equal(existsSync(join(dir, ".scalpel")), false, "nothing written into the work tree");

    const second = new EditJournal(new Sandbox(dir));
    assert.deepEqual(await second.ids(), ["e0a", "e0b"]);
    await undo(second);
    // The undone flag is persisted too: a third process does not offer e0b again.
    const third = new EditJournal(new Sandbox(dir));
    assert.equal((await third.pick(undefined)).id, "e0a");
    await undo(third);
    assert.equal(await readFile(join(dir, "p.ts"), "utf8"), "aaa\r\nbbb\r\n");
    await rm(folder, { recursive: true });
  });

  test("corrupt and malformed entries are skipped with a warning, the rest still loads", async () => {
    await writeFile(join(dir, "c.ts"), "ccc\n");
    const first = new EditJournal(sandbox);
    await edit(first, "e1c", "c.ts", "CCC");
    const folder = journalFolder(sandbox.root);
    await writeFile(join(folder, "0000000000-e00.json"), "{ not json");
    await writeFile(join(folder, "0000000001-e01.json"), JSON.stringify({ version: 1, id: "e01" }));
    await writeFile(join(folder, ".0000000001-e02.json.ab12cd34.scalpel-tmp"), "half");
    const log = recordingLog();
    const second = new EditJournal(new Sandbox(dir), { log });
    assert.deepEqual(await second.ids(), ["e1c"]);
    assert.equal(log.warnings.length, 2, log.warnings.join("\n"));
    assert.ok(!(await readdir(folder)).some((n) => n.endsWith(".scalpel-tmp")), "crash leftovers removed");
    await undo(second);
    assert.equal(await readFile(join(dir, "c.ts"), "utf8"), "ccc\n");
    await rm(folder, { recursive: true });
  });

  test("entries naming a path the sandbox refuses (outside the root, a secret file) are dropped", async () => {
    await writeFile(join(dir, ".env"), "TOKEN=1\n");
    await writeFile(join(dir, "ok.ts"), "okk\n");
    const folder = journalFolder(sandbox.root);
    const b64 = (s: string) => Buffer.from(s).toString("base64");
    const entry = (id: string, path: string) =>
      JSON.stringify({
        version: 1,
        id,
        tool: "test",
        undone: false,
        files: [{ path, before: b64("x"), after: b64("y") }],
      });
    const first = new EditJournal(sandbox);
    await edit(first, "e2a", "ok.ts", "OKK");
    await writeFile(join(folder, "0000000100-e2b.json"), entry("e2b", "../outside.ts"));
    await writeFile(join(folder, "0000000101-e2c.json"), entry("e2c", ".env"));
    const strict = new Sandbox(dir, new SecretRules([]));
    const second = new EditJournal(strict);
    const ids = await second.ids();
    assert.ok(!ids.includes("e2b"), "an entry outside the root is dropped");
    // The sandbox owns the secret rule, so a secret file's entry never comes back either.
    assert.throws(() => strict.resolve(".env"));
    assert.ok(!ids.includes("e2c"), "an entry for a secret file is dropped");
    assert.ok(ids.includes("e2a"));
    await rm(folder, { recursive: true });
  });

  test("bounded by entry count and by bytes; the oldest go first, files included", async () => {
    await writeFile(join(dir, "n.ts"), "000\n");
    const journal = new EditJournal(sandbox, { maxEntries: 3 });
    for (let i = 1; i <= 5; i++) await edit(journal, `e3${i}`, "n.ts", `${i}${i}${i}`);
    assert.deepEqual(await journal.ids(), ["e33", "e34", "e35"]);
    const folder = journalFolder(sandbox.root);
    assert.equal((await readdir(folder)).filter((n) => n.endsWith(".json")).length, 3);
    const reloaded = new EditJournal(new Sandbox(dir), { maxBytes: 10 });
    assert.deepEqual(await reloaded.ids(), ["e35"], "the newest entry always stays");
    await rm(folder, { recursive: true });
  });
});
