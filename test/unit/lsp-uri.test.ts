import * as assert from "node:assert/strict";
import { test } from "node:test";
import { normalizeUri, pathToUri, uriToPath } from "../../src/lsp/uri.js";

test("path and URI round-trip, with characters that need encoding", () => {
  const p = "/tmp/a dir/@scope/file#1.ts";
  const uri = pathToUri(p);
  assert.equal(uri, "file:///tmp/a%20dir/@scope/file%231.ts");
  assert.equal(uriToPath(uri), p);
});

test("URIs spelled differently by servers normalise to ours", () => {
  const ours = pathToUri("/tmp/x/@a/b.ts");
  // vscode-uri style: `@` percent-encoded, lower-case hex.
  assert.equal(normalizeUri("file:///tmp/x/%40a/b.ts"), ours);
  assert.equal(normalizeUri("file:///tmp/x/%40a/b%2Ets"), ours);
  assert.equal(normalizeUri("file:///tmp/x/@a/b.ts"), ours);
});

test("non-file and malformed URIs are left alone", () => {
  assert.equal(normalizeUri("untitled:Untitled-1"), "untitled:Untitled-1");
  assert.equal(normalizeUri("file://%zz"), "file://%zz");
});
