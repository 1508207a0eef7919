import * as assert from "node:assert/strict";
import { test } from "node:test";
import { unifiedDiff } from "../../src/edits/diff.js";

test("a changed line: a/ b/ headers and counts", () => {
  const d = unifiedDiff("src/a.ts", "one\ntwo\nthree\n", "one\n2\nthree\n");
  assert.equal(d.diff, "--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n three\n");
  assert.equal(d.added, 1);
  assert.equal(d.removed, 1);
});

test("CRLF and BOM do not show up in the diff", () => {
  const d = unifiedDiff("w.txt", "\uFEFFa\r\nb\r\n", "\uFEFFa\r\nc\r\n");
  assert.ok(!d.diff.includes("\r"));
  assert.ok(!d.diff.includes("\uFEFF"));
  assert.equal(d.added, 1);
});

test("created and deleted files diff against /dev/null", () => {
  const created = unifiedDiff("n.txt", null, "x\ny\n");
  assert.match(created.diff, /^--- \/dev\/null\n\+\+\+ b\/n\.txt\n/);
  assert.equal(created.added, 2);
  const deleted = unifiedDiff("n.txt", "x\n", null);
  assert.match(deleted.diff, /^--- a\/n\.txt\n\+\+\+ \/dev\/null\n/);
  assert.equal(deleted.removed, 1);
});

test("no change → empty diff", () => {
  assert.deepEqual(unifiedDiff("a", "x\r\n", "x\n"), { diff: "", added: 0, removed: 0 });
});
