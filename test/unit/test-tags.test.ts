/**
 * The test runner's header tags (test/run.mjs): a TypeScript e2e suite runs on both backends unless
 * it says why not, so no hand-kept list decides which suites the native server is tested by.
 */
import assert from "node:assert/strict";
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
