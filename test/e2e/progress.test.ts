/**
 * Progress while a call waits on a language server: the first call of a freshly started server on a
 * generated project waits for tsserver to load the project; a client that sent a progress token
 * (the SDK does so when `onprogress` is given) is told what the server is doing, and a client that
 * sent none gets no progress notification at all (checked on the raw stdout lines).
 */
import { strict as assert } from "node:assert";
import { after, before, describe, it } from "node:test";
import type { Progress } from "@modelcontextprotocol/sdk/types.js";
import {
  generateLargeFixture,
  type LargeFixture,
  makeTempProject,
  type TempProject,
} from "../helpers/fixtures.js";
import { CALL_TIMEOUT_MS, type ReferencesResult, sitesOf, startScalpel } from "../helpers/mcp.js";

const N = 300;

describe(`progress notifications on a cold ${N}-file project (e2e, typescript-language-server)`, () => {
  let fx: TempProject;
  let gen: LargeFixture;

  before(async () => {
    fx = await makeTempProject("scalpel-progress-");
    gen = await generateLargeFixture(fx.dir, N);
  });

  after(async () => {
    await fx?.cleanup();
  });

  const args = () => ({
    name_path: "Core/compute",
    relative_path: gen.coreFile,
    context_lines: 0,
    max_answer_chars: 5_000_000,
  });

  it("a cold call with a progress token is told what the server is doing", async (t) => {
    const h = await startScalpel({ project: fx.dir });
    try {
      const seen: Array<Progress & { at: number }> = [];
      const t0 = Date.now();
      const r = await h.client.callTool({ name: "find_referencing_symbols", arguments: args() }, undefined, {
        timeout: CALL_TIMEOUT_MS,
        resetTimeoutOnProgress: true,
        onprogress: (p) => seen.push({ ...p, at: Date.now() - t0 }),
      });
      const ms = Date.now() - t0;
      t.diagnostic(`call took ${ms} ms; progress: ${JSON.stringify(seen)}`);
      assert.notEqual(r.isError, true, JSON.stringify(r.content));
      const refs = sitesOf(r.structuredContent as unknown as ReferencesResult);
      assert.equal(refs.length, gen.computeSites.length, "the answer is still complete");
      assert.ok(seen.length >= 1, `no progress notification during a ${ms} ms cold call`);
      // The message names the server and its own account of the work: tsserver's project load when
      // it lasts past the first second, else the requests the call is waiting on.
      assert.ok(
        seen.some((p) =>
          /typescript language server: .*(Initializing|Loading|project|answering textDocument\/)/i.test(
            p.message ?? "",
          ),
        ),
        `no message names the server's work: ${JSON.stringify(seen.map((p) => p.message))}`,
      );
      // Nothing before a wait passed a second; progress values only grow; at most 4 a second.
      assert.ok(seen[0]!.at >= 900, `first notification after ${seen[0]!.at} ms`);
      for (let i = 1; i < seen.length; i++) {
        assert.ok(seen[i]!.progress > seen[i - 1]!.progress, "progress increases");
        assert.ok(seen[i]!.at - seen[i - 1]!.at >= 200, `notifications ${i - 1} and ${i} too close`);
      }
    } finally {
      await h.close();
    }
  });

  it("a cold call without a progress token gets no progress notification", async () => {
    const h = await startScalpel({ project: fx.dir });
    try {
      const r = await h.client.callTool({ name: "find_referencing_symbols", arguments: args() }, undefined, {
        timeout: CALL_TIMEOUT_MS,
      });
      assert.notEqual(r.isError, true, JSON.stringify(r.content));
      const progress = h.stdoutLines.filter((l) => l.includes('"notifications/progress"'));
      assert.deepEqual(progress, []);
      // The same raw lines do carry the answer, so the check above looked at the right stream.
      assert.ok(h.stdoutLines.some((l) => l.includes('"result"') && l.includes('"files"')));
    } finally {
      await h.close();
    }
  });
});
