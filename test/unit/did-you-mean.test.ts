/** "Did you mean" for misspelt names (src/core/did-you-mean.ts): options, tool parameters, symbols. */
import * as assert from "node:assert/strict";
import { test } from "node:test";
import { didYouMean, editDistance } from "../../src/core/did-you-mean.js";

test("the candidate spelt the same but for case, - and _, else the nearest within 2 edits", () => {
  const params = ["name_path", "relative_path", "body", "dry_run", "max_answer_chars"];
  assert.equal(didYouMean("relative-path", params), "relative_path");
  assert.equal(didYouMean("dryRun", params), "dry_run");
  assert.equal(didYouMean("name_pth", params), "name_path");
  assert.equal(didYouMean("bdy", params), "body");
  assert.equal(didYouMean("verify", params), undefined, "nothing near");
  assert.equal(didYouMean("body", ["bo", "bod"]), "bod", "the nearest, not the first");
  assert.equal(didYouMean("q", ["id"]), undefined, "a name is never mostly edits");
  assert.equal(didYouMean("readonly", ["project", "read-only"]), "read-only");
});

test("editDistance counts edits, and stops counting past its bound", () => {
  assert.equal(editDistance("kitten", "sitting"), 3);
  assert.equal(editDistance("", "abc"), 3);
  assert.equal(editDistance("abc", "abcdefgh", 2), 3);
});
