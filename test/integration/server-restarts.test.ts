/**
 * The pool's restart budget, with the fake language server as fault injector (a real server does
 * not crash on demand): restarts are delayed more each time, the budget runs out after 3 restarts,
 * and activating the project again (`renew`) gives it back, so a server is never down for the rest
 * of the session.
 */
import * as assert from "node:assert/strict";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { isAppError } from "../../src/core/errors.js";
import { log } from "../../src/core/log.js";
import type { LanguageAdapter } from "../../src/languages/adapter.js";
import { killAllServersSync } from "../../src/process/spawn.js";
import { restartBackoffMs, ServerPool } from "../../src/servers/server-pool.js";

const fake = fileURLToPath(new URL("../helpers/fake-lsp.mjs", import.meta.url));
let root: string;

before(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "scalpel-restarts-")));
});
after(() => {
  killAllServersSync();
  rmSync(root, { recursive: true, force: true });
});

/** A language served by the fake in `mode`: `crash-on-request` exits (code 3) at the first request. */
function fakeAdapter(mode: string): LanguageAdapter {
  const adapter: LanguageAdapter = {
    id: "fake",
    displayName: "Fake",
    extensions: [".fk"],
    ignoredDirs: [],
    spec: () => ({
      id: "fake",
      launch: { command: process.execPath, args: [fake, mode] },
      readiness: {},
      languageIdFor: () => "fake",
      diagnostics: "push",
      requestTimeoutMs: 5_000,
    }),
    untrusted: () => adapter,
    probe: async () => ({ found: true }),
  };
  return adapter;
}

const file = () => join(root, "a.fk");

/** Starts (or restarts) the server for `a.fk`, waits for it, and makes it crash. */
async function crashOnce(pool: ServerPool): Promise<number> {
  const started = Date.now();
  const { session } = pool.sessionFor(file());
  await session.whenReady();
  const readyAfter = Date.now() - started;
  await assert.rejects(session.request("test/echo", {}), (e) => isAppError(e) && e.code === "server_crashed");
  assert.equal(session.status, "failed");
  return readyAfter;
}

test("restarts back off, stop after the budget, and re-activation gives the budget back", async () => {
  const pool = new ServerPool(root, [fakeAdapter("crash-on-request")], log);
  try {
    await crashOnce(pool); // the first start
    const waits: number[] = [];
    for (let i = 0; i < 3; i++) waits.push(await crashOnce(pool));
    // Restart n waits restartBackoffMs(n): 0, 1 s, 2 s (the fake needs ~0.3 s to come up).
    assert.ok(waits[1]! >= restartBackoffMs(2) - 50, `second restart waited: ${waits.join(", ")} ms`);
    assert.ok(waits[2]! >= restartBackoffMs(3) - 50, `third restart waited: ${waits.join(", ")} ms`);
    assert.ok(waits[0]! < restartBackoffMs(2), `the first restart is at once: ${waits[0]} ms`);
    assert.throws(
      () => pool.sessionFor(file()),
      (e) =>
        isAppError(e) &&
        e.code === "language_server_unavailable" &&
        /failed 4 times/.test(e.message) &&
        /activate_project/.test(e.message),
    );
    assert.equal(pool.states()[0]?.status, "failed");
    assert.equal(pool.states()[0]?.restarts, 3);

    // What activating the same project again does: the server is up again, with a fresh budget.
    pool.renew();
    const { session } = pool.sessionFor(file());
    assert.equal(session.status, "starting", "renew restarted the failed server");
    await session.whenReady();
    assert.equal(pool.states()[0]?.restarts, 4);
    for (let i = 0; i < 2; i++) await crashOnce(pool);
    assert.ok(pool.sessionFor(file()).session, "still within the renewed budget");
  } finally {
    await pool.shutdown();
  }
});

test("renew leaves a healthy server alone", async () => {
  const pool = new ServerPool(root, [fakeAdapter("normal")], log);
  try {
    const { session } = pool.sessionFor(file());
    await session.whenReady();
    pool.renew();
    assert.equal(pool.sessionFor(file()).session, session, "the same server");
    assert.deepEqual(await session.request("test/echo", { n: 1 }), { n: 1 });
    assert.equal(pool.states()[0]?.restarts, 0);
  } finally {
    await pool.shutdown();
  }
});
