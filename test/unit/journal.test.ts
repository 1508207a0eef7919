import assert from "node:assert/strict";
import { mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { applyPlan } from "../../src/edits/apply.js";
import { EditJournal, undoPlan } from "../../src/edits/journal.js";
import { isAppError } from "../../src/errors.js";
import { Sandbox } from "../../src/security/sandbox.js";

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
    journal.record({
      id,
      tool: "test",
      files: [...r.before].map(([abs, b]) => ({
        path: sandbox.fromAbsolute(abs)!,
        before: b,
        after: r.after.get(abs) ?? null,
      })),
    });
  }

  test("restores a CRLF file with a BOM byte for byte, latest edit first", async () => {
    const original = "\uFEFFone\r\ntwo\r\n";
    await writeFile(join(dir, "a.ts"), original);
    const journal = new EditJournal();
    await edit(journal, "e1", "a.ts", "uno");
    await edit(journal, "e2", "a.ts", "ein");
    assert.equal(journal.pick(undefined).id, "e2");
    await applyPlan(undoPlan(journal.pick(undefined)), { dryRun: false });
    journal.markUndone("e2");
    assert.equal(await readFile(join(dir, "a.ts"), "utf8"), "\uFEFFuno\r\ntwo\r\n");
    await applyPlan(undoPlan(journal.pick(undefined)), { dryRun: false });
    journal.markUndone("e1");
    assert.equal(await readFile(join(dir, "a.ts"), "utf8"), original);
    assert.throws(() => journal.pick(undefined), /no edit to undo/);
  });

  test("refuses, writing nothing, when the file changed since the edit", async () => {
    await writeFile(join(dir, "b.ts"), "abc\n");
    const journal = new EditJournal();
    await edit(journal, "e1", "b.ts", "xyz");
    await writeFile(join(dir, "b.ts"), "xyz\nchanged by someone else\n");
    await assert.rejects(
      applyPlan(undoPlan(journal.pick("e1")), { dryRun: false }),
      (e) => isAppError(e) && e.code === "edit_conflict",
    );
    assert.equal(await readFile(join(dir, "b.ts"), "utf8"), "xyz\nchanged by someone else\n");
  });
});
