// @tsserver-only the process start and the handshake are scalpel's, not the server's: one backend is enough
/**
 * Spawn → `initialize` answered in under a second (issue 21, acceptance 3; the bench's target is
 * 300 ms): the command loads its bundle with the V8 code cache (src/launch.ts) and nothing heavy
 * runs before the answer. Timed over the raw stdio pipe (no SDK client in between), best of three
 * starts: one start on a loaded 2-core machine can wait for the CPU, three rarely all do.
 */
import { strict as assert } from "node:assert";
import { after, before, describe, it } from "node:test";
import { copyFixture, type TempProject } from "../helpers/fixtures.js";
import { timeToInitialize } from "../helpers/start-time.js";

describe("spawn → initialize (e2e)", () => {
  let fx: TempProject;
  before(async () => {
    fx = await copyFixture("ts-basic");
  });
  after(async () => {
    await fx?.cleanup();
  });

  it("answers initialize within a second of the spawn (best of three)", async () => {
    const times: number[] = [];
    for (let i = 0; i < 3; i++) times.push(await timeToInitialize(fx.dir));
    const best = Math.min(...times);
    assert.ok(best < 1000, `initialize answered ${times.map((t) => t.toFixed(0)).join(", ")} ms after spawn`);
  });
});
