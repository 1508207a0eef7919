/**
 * Wait reports of one tool call: a wait on the server's progress reports what the server says it is
 * doing once the call has run for WAIT_REPORT_AFTER_MS and on every change after that, only inside the call
 * that listens; the throttle passes at most one message per gap, the latest one, never a repeat.
 */
import { strict as assert } from "node:assert";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { log } from "../../src/core/log.js";
import { Readiness, reportWaitsTo, throttled, WAIT_REPORT_AFTER_MS } from "../../src/lsp/readiness.js";

const quiet = { ...log, debug: () => {}, info: () => {}, warn: () => {}, child: () => quiet };

function loadingServer(): Readiness {
  const rd = new Readiness({ waitForProgress: true, settleMs: 20, maxWaitMs: 10_000 }, quiet, () => {});
  rd.created("load");
  rd.progress("load", { kind: "begin", title: "Initializing JS/TS language features…" });
  return rd;
}

test("a long wait reports the server's work after the threshold and on each change", async () => {
  const rd = loadingServer();
  const heard: Array<{ at: number; message: string }> = [];
  const t0 = Date.now();
  const waited = reportWaitsTo(
    (message) => heard.push({ at: Date.now() - t0, message }),
    () => rd.reportWhile("typescript language server", "starting", rd.idle()),
  );
  await sleep(WAIT_REPORT_AFTER_MS + 200);
  rd.progress("load", { kind: "report", message: "12/300 files", percentage: 4 });
  await sleep(50);
  rd.progress("load", { kind: "end" });
  await waited;
  const after = heard.length;
  rd.progress("other", { kind: "begin", title: "later work" });
  assert.deepEqual(
    heard.map((h) => h.message),
    [
      "typescript language server: Initializing JS/TS language features…",
      "typescript language server: Initializing JS/TS language features… 12/300 files (4%)",
      "typescript language server: starting",
    ].slice(0, heard.length),
  );
  assert.ok(heard.length >= 2, JSON.stringify(heard));
  assert.ok(heard[0]!.at >= WAIT_REPORT_AFTER_MS - 5, `first report after ${heard[0]!.at} ms`);
  assert.equal(heard.length, after, "nothing is reported once the wait is over");
});

test("a short wait and a call that does not listen report nothing", async () => {
  const short = loadingServer();
  const heard: string[] = [];
  const waited = reportWaitsTo(
    (m) => heard.push(m),
    () => short.reportWhile("s", "starting", short.idle()),
  );
  await sleep(100);
  short.progress("load", { kind: "end" });
  await waited;
  const long = loadingServer();
  const unheard = long.reportWhile("s", "starting", long.idle());
  await sleep(WAIT_REPORT_AFTER_MS + 100);
  long.progress("load", { kind: "end" });
  await unheard;
  assert.deepEqual(heard, []);
});

test("a call that has run past the threshold reports each later wait at once, even a short one", async () => {
  // Many short server requests after a long start (documentSymbol per site file) must not leave
  // the client without news: the threshold counts from the call's start, not each wait's.
  const rd = new Readiness({}, quiet, () => {});
  const heard: Array<{ at: number; message: string }> = [];
  const t0 = Date.now();
  await reportWaitsTo(
    (message) => heard.push({ at: Date.now() - t0, message }),
    async () => {
      await rd.reportWhile("s", "answering textDocument/documentSymbol", sleep(50));
      await sleep(WAIT_REPORT_AFTER_MS);
      await rd.reportWhile("s", "answering textDocument/documentSymbol", sleep(50));
    },
  );
  assert.deepEqual(
    heard.map((h) => h.message),
    ["s: answering textDocument/documentSymbol"],
  );
  assert.ok(heard[0]!.at >= WAIT_REPORT_AFTER_MS, `reported after ${heard[0]!.at} ms`);
});

test("the throttle sends the first message at once, then only the latest per gap, never a repeat", async () => {
  const sent: string[] = [];
  const t = throttled((m) => sent.push(m), 100);
  t.listener("a");
  t.listener("b");
  t.listener("c");
  assert.deepEqual(sent, ["a"]);
  await sleep(150);
  assert.deepEqual(sent, ["a", "c"]);
  t.listener("c");
  await sleep(150);
  assert.deepEqual(sent, ["a", "c"], "the same text twice in a row is sent once");
  t.listener("d");
  t.listener("e");
  t.stop();
  await sleep(150);
  assert.deepEqual(sent, ["a", "c", "d"], "stop drops what is pending");
});
