// rust-analyzer's readiness (`experimental/serverStatus`) and the `cargo check` tracker, with the
// message shapes rust-analyzer 0.0.340 sent on test/fixtures/rust-basic.
import assert from "node:assert/strict";
import { test } from "node:test";
import { rustAnalyzerCandidates } from "../../language-servers/rust-analyzer.js";
import { log } from "../../src/log.js";
import { PushedCheck } from "../../src/lsp/pushed-check.js";
import { Readiness } from "../../src/lsp/readiness.js";

const quiet = { ...log, debug: () => {}, info: () => {}, warn: () => {}, child: () => quiet };

test("server-status readiness waits for quiescent: true", async () => {
  const rd = new Readiness({ kind: "server-status", maxWaitMs: 5_000 }, quiet, () => {});
  rd.serverStatus({ health: "ok", quiescent: false });
  let ready = false;
  const waiting = rd.initialLoad().then(() => {
    ready = true;
  });
  await new Promise((res) => setTimeout(res, 50));
  assert.equal(ready, false);
  assert.equal(rd.indexing, true);
  rd.serverStatus({ health: "ok", quiescent: true });
  await waiting;
  assert.equal(rd.indexing, false);
});

test("a save makes diagnostics wait for the cargo check run it starts", async () => {
  const check = new PushedCheck({
    name: "cargo check",
    progressTitle: /^cargo /,
    startWithinMs: 1_000,
    maxWaitMs: 2_000,
  });
  assert.deepEqual(await check.settle(), { complete: true });
  check.expectRun();
  const settled = check.settle();
  setTimeout(() => check.progress("rustAnalyzer/flycheck/0", { kind: "begin", title: "cargo check" }), 20);
  setTimeout(() => check.progress("rustAnalyzer/flycheck/0", { kind: "report", message: "shop (bin)" }), 40);
  setTimeout(() => check.progress("rustAnalyzer/flycheck/0", { kind: "end" }), 80);
  const t0 = Date.now();
  assert.deepEqual(await settled, { complete: true });
  assert.ok(Date.now() - t0 >= 60);
});

test("a check still running at the bound gives complete: false with the reason", async () => {
  const check = new PushedCheck({
    name: "cargo check",
    progressTitle: /^cargo /,
    startWithinMs: 100,
    maxWaitMs: 100,
  });
  check.progress(1, { kind: "begin", title: "cargo check" });
  check.progress(2, { kind: "begin", title: "Indexing" });
  const r = await check.settle();
  assert.equal(r.complete, false);
  assert.match(r.reason ?? "", /^cargo check still running after 0\.1 s/);
});

test("no run after the start window: nothing to wait for, and the missed run is reported once", async () => {
  const check = new PushedCheck({
    name: "cargo check",
    progressTitle: /^cargo /,
    startWithinMs: 30,
    maxWaitMs: 2_000,
  });
  check.expectRun();
  const t0 = Date.now();
  // The session saves again on a missed start (rust-analyzer drops runs; see session.ts).
  assert.deepEqual(await check.settle(), { complete: true, missedStart: true });
  assert.ok(Date.now() - t0 < 500);
  assert.deepEqual(await check.settle(), { complete: true });
});

test("binary search order: SCALPEL_RUST_ANALYZER alone, else PATH, ~/.cargo/bin, ~/.cache/scalpel-ra", () => {
  assert.deepEqual(
    rustAnalyzerCandidates({ SCALPEL_RUST_ANALYZER: "/opt/ra" }).map((c) => c.from),
    ["SCALPEL_RUST_ANALYZER"],
  );
  assert.deepEqual(
    rustAnalyzerCandidates({}).map((c) => c.from),
    ["PATH", "~/.cargo/bin", "~/.cache/scalpel-ra"],
  );
});
