// @backends tsserver native:full
/**
 * Acceptance: 20 edits sent at once (as a host may) to 3 files over the built CLI. Every edit that
 * reports `applied` is on disk afterwards; every other one is an edit_conflict error that wrote
 * nothing. Edits that lost a race are re-resolved on the new text, so most of them land. The files
 * (LF, CRLF, UTF-8 BOM) keep their style and still compile.
 */
import { strict as assert } from "node:assert";
import { after, before, describe, it } from "node:test";
import { readBytes, readText, runTsc, type TempProject } from "../helpers/fixtures.js";
import { type ScalpelHandle, serveFixture, stopServing } from "../helpers/mcp.js";
import { editJobsFor as jobsFor } from "../helpers/parallel-edit-jobs.js";

describe("parallel edits (e2e, typescript-language-server)", () => {
  let fx: TempProject;
  let h: ScalpelHandle;

  before(async () => {
    ({ fx, h } = await serveFixture("ts-parallel"));
  });

  after(() => stopServing(h, fx));

  it("20 parallel edits on 3 files: every applied edit is on disk, every other one is edit_conflict", async (t) => {
    // Warm the server so the calls race each other, not the server's start.
    const warm = await h.call("get_symbols_overview", { relative_path: "src/alpha.ts" });
    assert.equal(warm.isError, false, warm.text);
    const jobs = [...jobsFor("alpha"), ...jobsFor("beta"), ...jobsFor("gamma")].slice(0, 20);
    assert.equal(jobs.length, 20);
    const results = await Promise.all(jobs.map((j) => h.call(j.tool, j.args)));

    const disk = new Map<string, string>();
    for (const f of ["src/alpha.ts", "src/beta.ts", "src/gamma.ts"]) disk.set(f, await readText(fx.dir, f));
    let applied = 0;
    const problems: string[] = [];
    results.forEach((r, k) => {
      const j = jobs[k]!;
      const onDisk = disk.get(j.file)!.includes(j.marker);
      if (!r.isError) {
        applied++;
        if ((r.structured as { applied?: boolean }).applied !== true)
          problems.push(`${j.marker}: not applied`);
        if (!onDisk) problems.push(`${j.marker}: reported applied, missing from disk (lost update)`);
      } else {
        if (!/^Error \(edit_conflict\)/.test(r.text))
          problems.push(`${j.marker}: unexpected error ${r.text}`);
        if (onDisk) problems.push(`${j.marker}: an edit_conflict wrote its text`);
      }
    });
    t.diagnostic(
      `${applied} of ${jobs.length} parallel edits applied, ${jobs.length - applied} edit_conflict`,
    );
    assert.deepEqual(problems, []);
    // Re-resolution makes losing a race the exception, not the rule.
    assert.ok(applied >= jobs.length / 2, `only ${applied} of ${jobs.length} edits landed`);

    // Each file keeps its own line-ending style and BOM.
    assert.ok(!disk.get("src/alpha.ts")!.includes("\r"), "alpha.ts stays LF");
    assert.ok(!/(?<!\r)\n/.test(disk.get("src/beta.ts")!), "beta.ts stays CRLF");
    const gamma = await readBytes(fx.dir, "src/gamma.ts");
    assert.deepEqual([...gamma.subarray(0, 3)], [0xef, 0xbb, 0xbf], "gamma.ts keeps its BOM");
    assert.equal(gamma.indexOf(Buffer.from([0xef, 0xbb, 0xbf]), 3), -1, "one BOM only");

    const tsc = runTsc(fx.dir);
    assert.equal(tsc.status, 0, tsc.output);
  });
});
