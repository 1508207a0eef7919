/**
 * A checker run that a save asked for and that never started (rust-analyzer under load dropped the
 * `cargo check` of a rename's saves) must not leave an old pushed set standing as
 * `complete: true`: the session saves the file again and waits for that run. A fake server
 * injects the dropped run (test/helpers/fake-dropped-check.mjs).
 */
import * as assert from "node:assert/strict";
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { log } from "../../src/core/log.js";
import { LspSession } from "../../src/lsp/session.js";
import type { ServerSpec } from "../../src/lsp/types.js";
import { killAllServersSync } from "../../src/process/spawn.js";

const fake = fileURLToPath(new URL("../helpers/fake-dropped-check.mjs", import.meta.url));
let root: string;
let record: string;

before(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "scalpel-dropped-check-")));
  record = join(root, "record.jsonl");
  writeFileSync(join(root, "lib.rs"), "pub fn a() {}\n");
});
after(() => {
  killAllServersSync();
  rmSync(root, { recursive: true, force: true });
});

const spec = (drop = "2"): ServerSpec => ({
  id: "fake-dropped-check",
  // Save 1 is scalpel's re-save after start-up (the fake runs no check at load); save 2 is the
  // write's, dropped.
  launch: { command: process.execPath, args: [fake], env: { FAKE_LSP_RECORD: record, FAKE_DROP_SAVE: drop } },
  readiness: {},
  languageIdFor: () => "rust",
  diagnostics: "pull",
  pushedAlongsidePull: {
    name: "cargo check",
    progressTitle: /^cargo /,
    startWithinMs: 300,
    maxWaitMs: 5_000,
    startsAfterLoad: true,
  },
  saveOnSync: true,
  requestTimeoutMs: 5_000,
});

test("a dropped checker run is asked for again: the answer holds the findings of the current text", async () => {
  writeFileSync(record, "");
  const s = new LspSession(spec(), root, log);
  try {
    const file = join(root, "lib.rs");
    const first = await s.diagnostics(file);
    assert.deepEqual(
      first.diagnostics.map((d) => d.message),
      ["found by check 1"],
    );
    // A write by scalpel: didChange + didSave; the fake drops the run this save asks for.
    writeFileSync(file, "pub fn b() {}\n");
    await s.didWrite([file]);
    const r = await s.diagnostics(file);
    assert.equal(r.complete, true, r.incompleteReason);
    assert.deepEqual(
      r.diagnostics.map((d) => d.message),
      ["found by check 3"],
      "not the findings of the state before the write: the file was saved again and that run waited for",
    );
    const saves = readFileSync(record, "utf8").split("\n").filter(Boolean);
    assert.equal(saves.length, 3, saves.join(" "));
  } finally {
    await s.shutdown();
  }
});

test("a checker that does not run after the save asked again: complete: false with the reason", async () => {
  writeFileSync(record, "");
  const s = new LspSession(spec("2,3"), root, log);
  try {
    const file = join(root, "lib.rs");
    await s.diagnostics(file);
    writeFileSync(file, "pub fn c() {}\n");
    await s.didWrite([file]);
    const r = await s.diagnostics(file);
    assert.equal(r.complete, false);
    assert.match(r.incompleteReason ?? "", /cargo check did not run after the last change/);
  } finally {
    await s.shutdown();
  }
});
