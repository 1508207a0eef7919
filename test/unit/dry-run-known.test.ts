/**
 * A dry run previews a file as the kept texts hold it (EditFileOp.known) without reading it again:
 * the same preview as from the disk when they agree; the kept text when the disk changed and no
 * change was reported yet, while an applied edit reads the disk under its lock and refuses.
 */
import * as assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { AppError } from "../../src/core/errors.js";
import { applyPlan } from "../../src/edits/apply.js";
import type { EditPlan, KnownFile } from "../../src/edits/plan.js";
import { Sandbox } from "../../src/security/sandbox.js";
import { positionAt, readTextFile } from "../../src/text/positions.js";
import { makeTempProject, type TempProject } from "../helpers/fixtures.js";

let tmp: TempProject;
let sandbox: Sandbox;
before(async () => {
  tmp = await makeTempProject("scalpel-dry-known-");
  sandbox = new Sandbox(tmp.dir);
});
after(() => tmp.cleanup());

/** A plan renaming `old` to `neu` at each of its places in `text`, pinned to `text` (and `known`). */
function renamePlan(rel: string, text: string, old: string, neu: string, known?: KnownFile): EditPlan {
  const edits = [...text.matchAll(new RegExp(old, "g"))].map((m) => ({
    range: { start: positionAt(text, m.index), end: positionAt(text, m.index + old.length) },
    newText: neu,
  }));
  return [
    { kind: "edit", path: sandbox.resolve(rel), edits, expectedText: text, ...(known ? { known } : {}) },
  ];
}

async function knownOf(rel: string): Promise<KnownFile> {
  const { bytes: _bytes, ...file } = await readTextFile(join(tmp.dir, rel), rel);
  return file;
}

describe("dry run of known files", () => {
  test("the same preview as read from the disk (BOM, CRLF, line endings of new text)", async () => {
    const text = "\uFEFFexport function foo() {}\r\nfoo();\r\nconst x = foo;\r\n";
    await writeFile(join(tmp.dir, "crlf.ts"), text);
    const known = await knownOf("crlf.ts");
    const plain = known.text;
    const fromDisk = await applyPlan(renamePlan("crlf.ts", plain, "foo", "bar"), { dryRun: true });
    const fromKnown = await applyPlan(renamePlan("crlf.ts", plain, "foo", "bar", known), { dryRun: true });
    assert.deepEqual(fromKnown.files, fromDisk.files);
    assert.equal(fromKnown.diff, fromDisk.diff);
    assert.deepEqual([...fromKnown.after.values()], [...fromDisk.after.values()]);
    assert.deepEqual([...fromKnown.before.values()], [...fromDisk.before.values()]);
  });

  test("a change not yet reported: the dry run shows the kept text, the write refuses", async () => {
    const text = "export const foo = 1;\n";
    await writeFile(join(tmp.dir, "moved.ts"), text);
    const known = await knownOf("moved.ts");
    await writeFile(join(tmp.dir, "moved.ts"), "export const foo = 2;\n");
    const preview = await applyPlan(renamePlan("moved.ts", text, "foo", "bar", known), { dryRun: true });
    assert.match(preview.diff, /^\+export const bar = 1;$/m, "previewed from the kept text, not read again");
    await assert.rejects(
      applyPlan(renamePlan("moved.ts", text, "foo", "bar", known), { dryRun: false }),
      (e: unknown) => e instanceof AppError && e.code === "edit_conflict",
    );
    assert.equal(await readFile(join(tmp.dir, "moved.ts"), "utf8"), "export const foo = 2;\n");
    // Kept text that is not the pinned one (or lossy) is not trusted: the disk is read.
    await assert.rejects(
      applyPlan(renamePlan("moved.ts", text, "foo", "bar", { ...known, text: "other" }), { dryRun: true }),
      (e: unknown) => e instanceof AppError && e.code === "edit_conflict",
    );
  });
});
