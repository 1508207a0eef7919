/**
 * The test runner's header tags (test/run.mjs): a TypeScript e2e suite runs on both backends unless
 * it says why not, so no hand-kept list decides which suites the native server is tested by.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

const e2e = join(import.meta.dirname, "..", "e2e");

test("every e2e file on a TypeScript fixture declares its backends, or why it runs on one", () => {
  const untagged: string[] = [];
  for (const name of readdirSync(e2e).filter((n) => n.endsWith(".test.ts"))) {
    const text = readFileSync(join(e2e, name), "utf8");
    if (!/["'`]ts-[a-z-]+["'`]/.test(text)) continue;
    const head = text.split("\n").slice(0, 40).join("\n");
    const both = /^\/\/ @backends tsserver native(:full)?$/m.test(head);
    const one = /^\/\/ @tsserver-only \S.{10,}$/m.test(head);
    if (both === one) untagged.push(name);
  }
  assert.deepEqual(untagged, []);
});

test("an @alone unit file says why; files run several to a process lose no test", () => {
  const unit = import.meta.dirname;
  for (const name of readdirSync(unit).filter((n) => n.endsWith(".test.ts"))) {
    const head = readFileSync(join(unit, name), "utf8").split("\n").slice(0, 40).join("\n");
    if (/^\/\/ @alone\b/m.test(head)) assert.match(head, /^\/\/ @alone \S.{10,}$/m, name);
  }
  // Two files as one group (the runner groups unit files), against each run by itself: a group
  // that ended after its first file's tests (an awaited import) counted 2 of 9 here.
  const files = ["test/unit/did-you-mean.test.ts", "test/unit/indent.test.ts"];
  const env = { ...process.env, SCALPEL_TEST_TSX: "1", SCALPEL_TEST_JOBS: "1" };
  const repo = join(unit, "..", "..");
  const count = (out: string, what: string) => Number(new RegExp(`^ℹ ${what} (\\d+)$`, "m").exec(out)?.[1]);
  const alone = files.map((f) => {
    const r = spawnSync(process.execPath, ["--import", "tsx", "--test-reporter=spec", f], {
      cwd: repo,
      encoding: "utf8",
    });
    return count(r.stdout, "tests");
  });
  const grouped = spawnSync(process.execPath, ["test/run.mjs", ...files], {
    cwd: repo,
    encoding: "utf8",
    env,
  });
  assert.equal(grouped.status, 0, grouped.stdout.slice(-2000));
  assert.match(grouped.stdout, /test\/unit\+integration \(2 files, group 1 of 1\)/);
  const passed = Number(/^(\d+) passed, 0 failed/m.exec(grouped.stdout)?.[1]);
  assert.ok(
    alone.every((n) => n > 0),
    `each file has tests: ${alone}`,
  );
  assert.equal(passed, (alone[0] ?? 0) + (alone[1] ?? 0));
});
