/**
 * A symbolic link swapped in a loop by another process, between a file inside the project and one
 * outside, while the reader and the writer use it 1,000 times each. Every use is checked the way
 * tools check it (`sandbox.resolve`, then read / `applyPlan`), so the race sits exactly between the
 * path check and the open. Not one read may return the outside content and not one write may reach
 * the outside file; the swapper's count and the mix of answers show the race really ran.
 */
import * as assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { AppError } from "../../src/core/errors.js";
import { applyPlan } from "../../src/edits/apply.js";
import { type CheckedPath, Sandbox } from "../../src/security/sandbox.js";
import { readProjectText } from "../../src/text/read.js";
import { makeTempProject, type TempProject } from "../helpers/fixtures.js";
import { type Swapper, startSwapper } from "../helpers/link-swapper.js";

let tmp: TempProject;
let swapper: Swapper;
const OUTSIDE = "OUTSIDE_MARKER\n";

before(async () => {
  tmp = await makeTempProject("scalpel-race-");
  await writeFile(join(tmp.dir, "inside.txt"), "inside 0\n");
  await writeFile(join(tmp.base, "outside.txt"), OUTSIDE);
  swapper = await startSwapper(spawn, tmp.dir, "link.txt", "inside.txt", join(tmp.base, "outside.txt"));
});
after(async () => {
  await swapper.stop();
  await tmp.cleanup();
});

test("1,000 reads and 1,000 writes through a link swapped in a loop never touch the outside file", async (t) => {
  const sandbox = new Sandbox(tmp.dir);
  // Refusals by where they happened: at the check, or at the open after the check had passed
  // (those are the swaps that landed in between: the ones a path check alone would have missed).
  const tally = { read: 0, written: 0, refusedAtCheck: 0, refusedAtOpen: new Map<string, number>() };
  const attempt = async (use: (path: CheckedPath) => Promise<void>) => {
    let path: CheckedPath;
    try {
      path = sandbox.resolve("link.txt", { mustExist: true });
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      tally.refusedAtCheck++;
      return false;
    }
    try {
      await use(path);
      return true;
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      tally.refusedAtOpen.set(e.code, (tally.refusedAtOpen.get(e.code) ?? 0) + 1);
      return false;
    }
  };
  for (let i = 0; i < 1000; i++) {
    const read = await attempt(async (path) => {
      const { text } = await readProjectText(path.abs, path.rel);
      assert.ok(!text.includes("OUTSIDE"), `read ${i} returned the outside file`);
      assert.match(text, /^inside \d+\n$/);
    });
    if (read) tally.read++;
    const written = await attempt(async (path) => {
      await applyPlan([{ kind: "create", path, content: `inside ${i + 1}\n`, overwrite: true }], {
        dryRun: false,
      });
    });
    if (written) tally.written++;
  }
  const swaps = await swapper.stop();
  assert.equal(await readFile(join(tmp.base, "outside.txt"), "utf8"), OUTSIDE, "the outside file changed");
  // Both sides of the race happened: some uses went through (to the inside file), some were refused.
  const shown = JSON.stringify({ ...tally, refusedAtOpen: [...tally.refusedAtOpen] });
  t.diagnostic(`${swaps} swaps; ${shown}`);
  assert.ok(swaps > 200, `the swapper ran only ${swaps} swaps`);
  assert.ok(tally.read > 0 && tally.written > 0, shown);
  assert.ok(tally.refusedAtOpen.size > 0, `no swap landed between a check and its open: ${shown}`);
  for (const code of tally.refusedAtOpen.keys()) {
    assert.ok(["path_outside_project", "edit_conflict", "file_not_found"].includes(code), code);
  }
  assert.match(await readFile(join(tmp.dir, "inside.txt"), "utf8"), /^inside \d+\n$/);
});
