/**
 * Untrusted Rust (#19): `cargo check` is off, so a file's diagnostics can never be "complete, no
 * errors" — they say `complete: false` and why, even on a file that rust-analyzer alone finds clean.
 */
import { strict as assert } from "node:assert";
import { after, before, describe, it } from "node:test";
import { copyFixture, type TempProject } from "../helpers/fixtures.js";
import { callOk, type ScalpelHandle, startScalpel } from "../helpers/mcp.js";
import { rustAnalyzerMissing } from "../helpers/servers.js";

const skip = rustAnalyzerMissing();
if (skip) process.stdout.write(`# SKIP rust untrusted diagnostics: ${skip}\n`);

interface FileDiagnostics {
  diagnostics: Array<{ message: string; line: number }>;
  complete: boolean;
  incomplete_reason?: string;
}

describe("untrusted Rust diagnostics (e2e, rust-analyzer)", { skip: skip ?? false }, () => {
  let fx: TempProject;
  let h: ScalpelHandle;

  before(async () => {
    fx = await copyFixture("rust-errors");
    h = await startScalpel({ project: fx.dir, trust: false });
  });
  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  for (const file of ["src/lib.rs", "src/report.rs"]) {
    it(`${file}: complete: false, saying cargo check is off and how to turn it on`, async () => {
      const r = await callOk<FileDiagnostics>(h, "get_diagnostics_for_file", { relative_path: file });
      assert.equal(r.complete, false, JSON.stringify(r));
      assert.match(r.incomplete_reason ?? "", /cargo check is off/);
      assert.match(r.incomplete_reason ?? "", /scalpel trust/);
    });
  }
});
