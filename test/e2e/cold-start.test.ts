/**
 * Cold start on a generated project of a few hundred files, where loading takes measurable time:
 * the FIRST find_referencing_symbols and the FIRST rename_symbol (dry run) of a freshly started
 * server return the complete answer, equal to a warm server's answer and to the generator's
 * own list of call sites.
 */
import { strict as assert } from "node:assert";
import { after, before, describe, it } from "node:test";
import {
  generateLargeFixture,
  hashTree,
  type LargeFixture,
  makeTempProject,
  siteKeys,
  type TempProject,
} from "../helpers/fixtures.js";
import {
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

  it("the first find_referencing_symbols is complete and equals the warm answer", async (t) => {
    const h = await startScalpel({ project: fx.dir });
    try {
      const args = {
        name_path: "Core/compute",
        relative_path: gen.coreFile,
        context_lines: 0,
        max_answer_chars: 5_000_000,
      };
      const cold = await timed(() => callOk<ReferencesResult>(h, "find_referencing_symbols", args));
      const warm = await timed(() => callOk<ReferencesResult>(h, "find_referencing_symbols", args));
      t.diagnostic(`cold ${cold.ms} ms, warm ${warm.ms} ms, ${sitesOf(cold.value).length} references`);
      assert.equal(cold.value.complete, true, `cold: ${cold.value.incomplete_reason}`);
      assert.notEqual(cold.value.truncated, true, "cold answer not truncated");
      assert.equal(warm.value.complete, true);
      assert.equal(sitesOf(cold.value).length, gen.computeSites.length);
      assert.deepEqual(siteKeys(sitesOf(cold.value)), siteKeys(sitesOf(warm.value)));
      assert.deepEqual(siteKeys(sitesOf(cold.value)), siteKeys(gen.computeSites));
      assert.equal(cold.value.files.length, gen.callerFiles.length);
    } finally {
      await h.close();
    }
  });

  it("the first rename_symbol (dry run) is complete and equals the warm answer", async (t) => {
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
    } finally {
      await h.close();
    }
  });
});
