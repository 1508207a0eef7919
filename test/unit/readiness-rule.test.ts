/**
 * The generic client interprets whatever readiness rule and client capabilities an adapter
 * declares: a status notification under any method name, progress, settle windows, nothing at all.
 * The built-in adapters' own rules are checked with their message shapes in the *-adapter tests.
 */
import { strict as assert } from "node:assert";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { log } from "../../src/core/log.js";
import { clientCapabilities } from "../../src/lsp/capabilities.js";
import { Readiness } from "../../src/lsp/readiness.js";

const quiet = { ...log, debug: () => {}, info: () => {}, warn: () => {}, child: () => quiet };

/** Resolves to the ms `p` took, or to "pending" when it is still running after `withinMs`. */
async function settledWithin(p: Promise<unknown>, withinMs: number): Promise<number | "pending"> {
  const t0 = Date.now();
  const r = await Promise.race([
    p.then(() => Date.now() - t0),
    sleep(withinMs).then(() => "pending" as const),
  ]);
  return r;
}

test("no signal declared: the server is used at once, whatever progress it reports", async () => {
  const rd = new Readiness({}, quiet, () => {});
  rd.created("t");
  rd.progress("t", { kind: "begin", title: "Loading" });
  rd.documentOpened();
  assert.notEqual(await settledWithin(rd.initialLoad(), 50), "pending");
  assert.notEqual(await settledWithin(rd.idle(), 50), "pending");
  assert.equal(rd.indexing, false);
});

test("a status notification under any method name holds requests while it says busy", async () => {
  const heard: string[] = [];
  const rd = new Readiness(
    {
      status: {
        method: "acme/state",
        busy: (p) => (typeof p.phase === "string" ? p.phase !== "idle" : undefined),
        message: (p) => (typeof p.phase === "string" ? p.phase : undefined),
      },
      maxWaitMs: 5_000,
    },
    quiet,
    (title, message) => heard.push(`${title}: ${message}`),
  );
  assert.equal(rd.indexing, false, "idle until told otherwise (initiallyBusy not set)");
  rd.status({ phase: "scanning" });
  assert.equal(rd.indexing, true);
  assert.equal(rd.describe(), "scanning");
  const idle = rd.idle();
  assert.equal(await settledWithin(idle, 60), "pending");
  rd.status(null);
  rd.status({ other: 1 });
  assert.equal(rd.indexing, true, "params that say nothing change nothing");
  rd.status({ phase: "idle" });
  assert.notEqual(await settledWithin(idle, 200), "pending");
  assert.equal(rd.indexing, false);
  assert.deepEqual(heard, ["server status: scanning", "server status: idle"]);
});

test("past the bound a busy status no longer holds requests, and the server still counts as indexing", async () => {
  const rd = new Readiness(
    { status: { method: "acme/state", busy: (p) => p.busy === true, initiallyBusy: true }, maxWaitMs: 80 },
    quiet,
    () => {},
  );
  const t0 = Date.now();
  await rd.initialLoad();
  assert.ok(Date.now() - t0 >= 70, "waited for the bound");
  assert.notEqual(await settledWithin(rd.idle(), 40), "pending", "gave up: no new wait");
  assert.equal(rd.indexing, true);
  rd.status({ busy: false });
  rd.status({ busy: true });
  assert.equal(await settledWithin(rd.idle(), 40), "pending", "busy again after an idle report: waited for");
});

test("the first-open window waits for a progress that begins late, and ends when it is announced", async () => {
  const rd = new Readiness(
    { waitForProgress: true, firstOpenSettleMs: 2_000, maxWaitMs: 5_000 },
    quiet,
    () => {},
  );
  await rd.initialLoad();
  rd.documentOpened();
  const idle = rd.idle();
  assert.equal(await settledWithin(idle, 100), "pending", "inside the window");
  rd.created("load");
  rd.progress("load", { kind: "begin", title: "Loading" });
  assert.equal(await settledWithin(idle, 100), "pending", "the progress is open");
  rd.progress("load", { kind: "end" });
  const took = await settledWithin(idle, 500);
  assert.notEqual(took, "pending", "the window ended with the announcement, not after 2 s");
  rd.documentOpened();
  assert.notEqual(await settledWithin(rd.idle(), 50), "pending", "only the first open opens a window");
});

test("an adapter's extra client capabilities are merged into the generic ones", () => {
  const plain = clientCapabilities();
  assert.equal(plain.experimental, undefined, "nothing server-specific is announced by default");
  const merged = clientCapabilities({
    experimental: { statusNotification: true },
    window: { showDocument: { support: false } },
  });
  assert.deepEqual(merged.experimental, { statusNotification: true });
  assert.equal(merged.window?.workDoneProgress, true, "generic keys of a merged section are kept");
  assert.deepEqual(merged.window?.showDocument, { support: false });
  assert.deepEqual(merged.textDocument, plain.textDocument);
  assert.equal(clientCapabilities().window?.showDocument, undefined, "the generic set is not changed");
});
