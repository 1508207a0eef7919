// Which changes a server is told about: the globs and kinds it registered for
// workspace/didChangeWatchedFiles (src/lsp/watch-registrations.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import { FileChangeType, WatchKind } from "vscode-languageserver-protocol";
import { pathToUri } from "../../src/lsp/uri.js";
import { WatchRegistrations } from "../../src/lsp/watch-registrations.js";

const root = "/projects/proj";
const reg = (id: string, watchers: unknown[], method = "workspace/didChangeWatchedFiles") => ({
  id,
  method,
  registerOptions: { watchers },
});

test("nothing is wanted before a registration, and other methods' registrations are ignored", () => {
  const r = new WatchRegistrations();
  assert.equal(r.any, false);
  assert.equal(r.register([reg("x", [{ globPattern: "**/*" }], "textDocument/formatting")]), false);
  assert.equal(r.any, false);
  assert.equal(r.wants(`${root}/a.ts`, FileChangeType.Changed), false);
});

test("a relative pattern (tsls: baseUri = root, **/*) covers the tree below its base only", () => {
  const r = new WatchRegistrations();
  assert.equal(
    r.register([reg("ts", [{ globPattern: { baseUri: pathToUri(root), pattern: "**/*" }, kind: 7 }])]),
    true,
  );
  assert.equal(r.wants(`${root}/src/a.ts`, FileChangeType.Changed), true);
  assert.equal(r.wants(`${root}/.hidden/b.ts`, FileChangeType.Created), true, "dot paths are files too");
  assert.equal(r.wants(`${root}x/a.ts`, FileChangeType.Changed), false, "a sibling with a common prefix");
  assert.equal(r.wants("/elsewhere/a.ts", FileChangeType.Deleted), false);
});

test("a relative pattern may name its base as a workspace folder", () => {
  const r = new WatchRegistrations();
  r.register([
    reg("w", [
      { globPattern: { baseUri: { uri: pathToUri(`${root}/`), name: "proj" }, pattern: "src/*.ts" } },
    ]),
  ]);
  assert.equal(r.wants(`${root}/src/a.ts`, FileChangeType.Changed), true);
  assert.equal(r.wants(`${root}/src/deep/a.ts`, FileChangeType.Changed), false, "* stays in one directory");
});

test("plain glob strings match the whole path (rust-analyzer: **/*.rs, <root>/**/Cargo.toml)", () => {
  const r = new WatchRegistrations();
  r.register([reg("ra", [{ globPattern: "**/*.rs" }, { globPattern: `${root}/**/Cargo.{toml,lock}` }])]);
  assert.equal(r.wants(`${root}/src/lib.rs`, FileChangeType.Changed), true);
  assert.equal(r.wants(`${root}/crates/x/Cargo.toml`, FileChangeType.Created), true);
  assert.equal(r.wants(`${root}/Cargo.lock`, FileChangeType.Changed), true);
  assert.equal(r.wants("/other/Cargo.toml", FileChangeType.Changed), false);
  assert.equal(r.wants(`${root}/src/lib.ts`, FileChangeType.Changed), false);
});

test("kind bits select the changes: a create/delete-only watcher is not told about edits", () => {
  const r = new WatchRegistrations();
  r.register([reg("cd", [{ globPattern: "**/*.ts", kind: WatchKind.Create | WatchKind.Delete }])]);
  assert.equal(r.wants(`${root}/a.ts`, FileChangeType.Created), true);
  assert.equal(r.wants(`${root}/a.ts`, FileChangeType.Deleted), true);
  assert.equal(r.wants(`${root}/a.ts`, FileChangeType.Changed), false);
});

test("re-registering an id replaces it; unregistering removes it", () => {
  const r = new WatchRegistrations();
  r.register([reg("one", [{ globPattern: "**/*.ts" }])]);
  r.register([reg("one", [{ globPattern: "**/*.rs" }])]);
  assert.equal(r.wants(`${root}/a.ts`, FileChangeType.Changed), false);
  assert.equal(r.wants(`${root}/a.rs`, FileChangeType.Changed), true);
  r.unregister(["one"]);
  assert.equal(r.any, false);
  assert.equal(r.wants(`${root}/a.rs`, FileChangeType.Changed), false);
});
