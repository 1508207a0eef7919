// @alone it trusts projects or reads trust in the tests' default SCALPEL_HOME, shared in a group
// @tsserver-only scalpel's own behaviour (protocol, limits, security), not the server's: one backend is enough
/**
 * Unknown parameters are refused, not dropped, on both ways in (e2e, the built CLI): through the
 * official MCP SDK client over stdio, and as a one-shot terminal run. `skip_checks: true` and a misspelt
 * `dry_rn: true` given to replace_symbol_body were stripped before: the edit was applied, for real.
 * Now the call is refused by name, with the near miss suggested, and the file stays byte-identical.
 */
import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { hashTree, readBytes, type TempProject } from "../helpers/fixtures.js";
import { cliPath, type EditResult, type ScalpelHandle, serveFixture, stopServing } from "../helpers/mcp.js";

const edit = {
  name_path: "Money/double",
  relative_path: "src/money.ts",
  body: "double(): Money {\n  return this.add(this);\n}",
};

describe("strict arguments (e2e, typescript-language-server)", () => {
  let fx: TempProject;
  let h: ScalpelHandle;
  const home = mkdtempSync(join(tmpdir(), "scalpel-strict-home-"));

  before(async () => {
    ({ fx, h } = await serveFixture("ts-basic"));
  });

  after(async () => {
    await stopServing(h, fx);
    rmSync(home, { recursive: true, force: true });
  });

  it("MCP: replace_symbol_body with skip_checks and a misspelt dry_run is refused by name; nothing is written", async () => {
    const { tools } = await h.client.listTools();
    const listed = tools.find((t) => t.name === "replace_symbol_body");
    assert.equal(listed?.inputSchema.additionalProperties, false);
    const file = await readBytes(fx.dir, "src/money.ts");
    const tree = await hashTree(fx.dir);
    const r = await h.call("replace_symbol_body", { ...edit, skip_checks: true, dry_rn: true });
    assert.equal(r.isError, true, r.text);
    // Hosts show the model only the text of an error result: it says what went wrong and what to do.
    assert.match(
      r.text,
      /^Error \(invalid_argument\): Invalid arguments for replace_symbol_body: unknown parameters 'skip_checks', 'dry_rn' \(did you mean 'dry_run'\?\): replace_symbol_body has no such parameters and did nothing\. Its parameters: 'name_path', 'relative_path', 'body', 'dry_run'/,
    );
    assert.match(r.text, /Call it again with the parameters its input schema lists/);
    assert.deepEqual(await readBytes(fx.dir, "src/money.ts"), file, "byte-identical");
    assert.deepEqual(await hashTree(fx.dir), tree);
    // Without the two, the same call is a valid dry run: the refusal was theirs alone.
    const ok = await h.call<EditResult>("replace_symbol_body", { ...edit, dry_run: true });
    assert.equal(ok.isError, false, ok.text);
    assert.match(ok.structured.diff ?? "", /^\+\s+return this\.add\(this\);$/m);
    assert.deepEqual(await hashTree(fx.dir), tree);
  });

  it("terminal: the one-shot run refuses them the same way before it opens the project", async () => {
    const file = await readBytes(fx.dir, "src/money.ts");
    const args = Object.entries(edit).flatMap(([k, v]) => [`--${k}`, v]);
    const r = spawnSync(
      process.execPath,
      [
        cliPath,
        "replace_symbol_body",
        "--project",
        fx.dir,
        ...args,
        "--skip_checks",
        "true",
        "--dry_rn",
        "true",
      ],
      { env: { ...process.env, SCALPEL_HOME: home }, encoding: "utf8", timeout: 60_000 },
    );
    assert.equal(r.status, 2, `${r.stdout}${r.stderr}`);
    assert.equal(r.stdout, "");
    assert.match(
      r.stderr,
      /^Error \(invalid_argument\): Invalid arguments for replace_symbol_body: unknown parameters --skip_checks, --dry_rn \(did you mean --dry_run\?\): replace_symbol_body has no such parameters and did nothing\. Its parameters: --name_path, --relative_path, --body, --dry_run, .*, --project, --read-only, --trust\. Run it again without them\./,
    );
    assert.deepEqual(await readBytes(fx.dir, "src/money.ts"), file, "byte-identical");
    // A misspelt option of the command itself is suggested too.
    const option = spawnSync(
      process.execPath,
      [cliPath, "list_dir", "--projekt", fx.dir, "--relative_path", "."],
      {
        env: { ...process.env, SCALPEL_HOME: home },
        encoding: "utf8",
        timeout: 60_000,
      },
    );
    assert.equal(option.status, 2);
    assert.match(option.stderr, /unknown parameter --projekt \(did you mean --project\?\)/);
  });
});
