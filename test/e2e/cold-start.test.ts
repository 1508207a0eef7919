/**
 * Cold start on a generated project of a few hundred files, where loading takes measurable time:
 * the FIRST find_referencing_symbols and the FIRST rename_symbol (dry run) of a freshly started
 * server return the complete answer, equal to a warm server's answer and to the generator's own
 * list of call sites. The same first calls prove progress: a client that sent a progress token
 * (the SDK does so when `onprogress` is given) is told what the server is doing while the call
 * waits for tsserver to load the project, and a client that sent none gets no progress
 * notification at all (checked on the raw stdout lines). One server per cold call: each is the
 * first call of its session (two sessions, not four: the progress cases were a file of their own,
 * each with its own generated project and sessions, 10 s of CPU for the same cold calls).
 */
import { strict as assert } from "node:assert";
import { after, before, describe, it } from "node:test";
import type { Progress } from "@modelcontextprotocol/sdk/types.js";
import {
  generateLargeFixture,
  hashTree,
  type LargeFixture,
  makeTempProject,
  siteKeys,
  type TempProject,
} from "../helpers/fixtures.js";
import {
  CALL_TIMEOUT_MS,
  callOk,
  type EditResult,
  editedFiles,
  type ReferencesResult,
  sitesOf,
  startScalpel,
} from "../helpers/mcp.js";

const N = 300;

async function timed<T>(f: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t0 = performance.now();
  const value = await f();
  return { value, ms: Math.round(performance.now() - t0) };
}

describe(`cold start on a generated ${N}-file project (e2e, typescript-language-server)`, () => {
  let fx: TempProject;
  let gen: LargeFixture;
  let tree0: Record<string, string>;

  before(async () => {
    fx = await makeTempProject("scalpel-large-");
    gen = await generateLargeFixture(fx.dir, N);
    tree0 = await hashTree(fx.dir);
  });

  after(async () => {
    await fx?.cleanup();
  });

  it("the first find_referencing_symbols is complete, equals the warm answer, and reports progress to a client that asked", async (t) => {
    const h = await startScalpel({ project: fx.dir });
    try {
      const args = {
        name_path: "Core/compute",
        relative_path: gen.coreFile,
        context_lines: 0,
        max_answer_chars: 5_000_000,
      };
      const seen: Array<Progress & { at: number }> = [];
      const t0 = Date.now();
      const cold = await timed(async () => {
        const r = await h.client.callTool({ name: "find_referencing_symbols", arguments: args }, undefined, {
          timeout: CALL_TIMEOUT_MS,
          resetTimeoutOnProgress: true,
          onprogress: (p) => seen.push({ ...p, at: Date.now() - t0 }),
        });
        assert.notEqual(r.isError, true, JSON.stringify(r.content));
        return r.structuredContent as unknown as ReferencesResult;
      });
      const warm = await timed(() => callOk<ReferencesResult>(h, "find_referencing_symbols", args));
      t.diagnostic(`cold ${cold.ms} ms, warm ${warm.ms} ms, ${sitesOf(cold.value).length} references`);
      t.diagnostic(`progress: ${JSON.stringify(seen)}`);
      assert.equal(cold.value.complete, true, `cold: ${cold.value.incomplete_reason}`);
      assert.notEqual(cold.value.truncated, true, "cold answer not truncated");
      assert.equal(warm.value.complete, true);
      assert.equal(sitesOf(cold.value).length, gen.computeSites.length);
      assert.deepEqual(siteKeys(sitesOf(cold.value)), siteKeys(sitesOf(warm.value)));
      assert.deepEqual(siteKeys(sitesOf(cold.value)), siteKeys(gen.computeSites));
      assert.equal(cold.value.files.length, gen.callerFiles.length);

      assert.ok(seen.length >= 1, `no progress notification during a ${cold.ms} ms cold call`);
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

  it("the first rename_symbol (dry run) is complete, equals the warm answer, and sends no progress to a client that did not ask", async (t) => {
    const h = await startScalpel({ project: fx.dir });
    try {
      const args = {
        name_path: "Core/compute",
        relative_path: gen.coreFile,
        new_name: "evaluate",
        dry_run: true,
      };
      const cold = await timed(() => callOk<EditResult>(h, "rename_symbol", args));
      const warm = await timed(() => callOk<EditResult>(h, "rename_symbol", args));
      t.diagnostic(`cold ${cold.ms} ms, warm ${warm.ms} ms, ${cold.value.files.length} files`);
      const files = (r: EditResult) =>
        editedFiles(r)
          .map((f) => f.relative_path)
          .sort();
      assert.equal(cold.value.applied, false);
      assert.deepEqual(files(cold.value), [...gen.callerFiles, gen.coreFile].sort());
      assert.deepEqual(files(cold.value), files(warm.value));
      for (const f of editedFiles(cold.value)) assert.equal(f.added_lines, 1, JSON.stringify(f));
      assert.equal(cold.value.diff, warm.value.diff, "same diff cold and warm");
      assert.deepEqual(await hashTree(fx.dir), tree0, "dry runs wrote nothing");

      // callOk sends no progress token: the cold call (seconds of project load) sent no progress.
      const progress = h.stdoutLines.filter((l) => l.includes('"notifications/progress"'));
      assert.deepEqual(progress, []);
      // The same raw lines do carry the answers, so the check above looked at the right stream.
      assert.ok(h.stdoutLines.some((l) => l.includes('"result"') && l.includes('"diff"')));
    } finally {
      await h.close();
    }
  });
});
