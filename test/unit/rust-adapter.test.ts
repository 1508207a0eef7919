// @alone sets SCALPEL_RUST_ANALYZER, which the adapter's cached probe reads
// rust-analyzer's readiness (`experimental/serverStatus`) and the `cargo check` tracker, with the
// message shapes rust-analyzer 0.0.340 sent on test/fixtures/rust-basic. The readiness rule is the
// one the adapter declares, interpreted by the generic client.
import assert from "node:assert/strict";
import { test } from "node:test";
import { rustAnalyzerAdapter, rustAnalyzerCandidates } from "../../language-servers/rust-analyzer.js";
import { log } from "../../src/core/log.js";
import { clientCapabilities } from "../../src/lsp/capabilities.js";
import { PushedCheck } from "../../src/lsp/pushed-check.js";
import { Readiness } from "../../src/lsp/readiness.js";
import type { ServerSpec } from "../../src/lsp/types.js";

const quiet = { ...log, debug: () => {}, info: () => {}, warn: () => {}, child: () => quiet };

/** The adapter's spec; any executable stands in for rust-analyzer (only the spec is read). */
function declaredSpec(): ServerSpec {
  const saved = process.env.SCALPEL_RUST_ANALYZER;
  process.env.SCALPEL_RUST_ANALYZER = process.execPath;
  try {
    const spec = rustAnalyzerAdapter.spec("/tmp");
    assert.ok(!("missing" in spec), JSON.stringify(spec));
    return spec;
  } finally {
    if (saved === undefined) delete process.env.SCALPEL_RUST_ANALYZER;
    else process.env.SCALPEL_RUST_ANALYZER = saved;
  }
}

test("the adapter asks for serverStatus and its rule waits for quiescent: true, not for progress", async () => {
  const spec = declaredSpec();
  // Without the capability rust-analyzer sends no status at all and every start waits the bound.
  assert.deepEqual(clientCapabilities(spec.clientCapabilities).experimental, {
    serverStatusNotification: true,
  });
  assert.ok(clientCapabilities(spec.clientCapabilities).textDocument?.documentSymbol, "generic ones kept");
  const rd = new Readiness(spec.readiness, quiet, () => {});
  assert.equal(rd.indexing, true, "busy before the first status");
  rd.status({ health: "ok", quiescent: false, message: "Indexing 3/10" });
  let ready = false;
  const waiting = rd.initialLoad().then(() => {
    ready = true;
  });
  await new Promise((res) => setTimeout(res, 50));
  assert.equal(ready, false);
  assert.equal(rd.indexing, true);
  assert.equal(rd.describe(), "Indexing 3/10", "the status message says what it is doing");
  rd.status("not an object");
  rd.status({ health: "ok", quiescent: true });
  await waiting;
  assert.equal(rd.indexing, false);
  // A `cargo check` progress while quiescent holds no request.
  rd.progress("rustAnalyzer/flycheck/0", { kind: "begin", title: "cargo check" });
  const t0 = Date.now();
  await rd.idle();
  assert.ok(Date.now() - t0 < 100, "idle at once");
  assert.equal(rd.indexing, false);
  rd.status({ health: "ok", quiescent: false });
  assert.equal(rd.indexing, true, "busy again when it says so");
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

test("a run announced before the cancelled one under the same token ends is still waited for", async () => {
  const check = new PushedCheck({
    name: "cargo check",
    progressTitle: /^cargo /,
    startWithinMs: 1_000,
    maxWaitMs: 2_000,
  });
  check.progress("flycheck/0", { kind: "begin", title: "cargo check" });
  check.progress("flycheck/0", { kind: "begin", title: "cargo check" });
  check.progress("flycheck/0", { kind: "end" });
  assert.equal(check.busy, true, "the second run has not ended");
  check.progress("flycheck/0", { kind: "end" });
  check.progress("flycheck/0", { kind: "end" });
  assert.equal(check.busy, false);
  assert.deepEqual(await check.settle(), { complete: true });
});

test("a run ended and another begun just after (a restart) is one wait: settle resolves at the second end", async () => {
  const spec = declaredSpec();
  assert.equal(spec.pushedAlongsidePull?.quietAfterEndMs, 150, "the adapter declares the quiet window");
  const check = new PushedCheck(spec.pushedAlongsidePull!);
  check.progress("flycheck/0", { kind: "begin", title: "cargo check" });
  check.expectRun();
  const settled = check.settle().then((r) => ({ ...r, at: Date.now() }));
  const t0 = Date.now();
  // The cancelled run's end, then the new run's begin 30 ms later, its end 100 ms after that.
  setTimeout(() => check.progress("flycheck/0", { kind: "end" }), 10);
  setTimeout(() => check.progress("flycheck/0", { kind: "begin", title: "cargo check" }), 40);
  setTimeout(() => check.progress("flycheck/0", { kind: "end" }), 140);
  const r = await settled;
  assert.equal(r.complete, true);
  assert.ok(r.at - t0 >= 140, `settled ${r.at - t0} ms in, before the second run ended`);
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
  // The session saves again on a missed start (rust-analyzer drops runs; see file-diagnostics.ts).
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
