/**
 * Every tool refuses parameters it does not have, through the MCP SDK (the strict input object the
 * server registers, src/tools/kit/input.ts) and through the wrapper the terminal uses (runTool):
 * the error names them, suggests the near miss, lists the valid ones, and nothing is written.
 * In-process client ⇄ server over InMemoryTransport; the built CLI's stdio and terminal paths are
 * in test/e2e/strict-arguments.test.ts.
 */
import * as assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { log } from "../../src/core/log.js";
import { allTools } from "../../src/tools/index.js";
import type { ToolDef } from "../../src/tools/kit/define.js";
import { runTool } from "../../src/tools/kit/run.js";
import { Workspace } from "../../src/workspace/workspace.js";
import { makeTempProject, type TempProject } from "../helpers/fixtures.js";
import { callInProcess, closeInProcess, connectInProcess } from "../helpers/in-process.js";

describe("strict tool arguments (in-process)", () => {
  let tmp: TempProject;
  let client: Client;
  let workspace: Workspace;
  const savedHome = process.env.SCALPEL_HOME;

  const call = (name: string, args: Record<string, unknown>) => callInProcess(client, name, args);

  before(async () => {
    tmp = await makeTempProject("scalpel-strict-args-");
    process.env.SCALPEL_HOME = join(tmp.base, "home");
    workspace = new Workspace({ readOnly: false, cwd: tmp.base, projectsIn: [tmp.base] }, log);
    await workspace.activate(tmp.dir, { startServers: false, byUser: true });
    client = await connectInProcess(workspace, "strict-args");
  });

  after(async () => {
    await closeInProcess(client, workspace, savedHome);
    await tmp?.cleanup();
  });

  test("tools/list: every tool's input schema says additionalProperties: false", async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), allTools.map((t) => t.name).sort());
    for (const t of tools) assert.equal(t.inputSchema.additionalProperties, false, t.name);
  });

  test("every tool refuses an unknown parameter by name, listing its own", async () => {
    for (const def of allTools) {
      const r = await call(def.name, { __not_a_parameter: 1 });
      assert.equal(r.isError, true, `${def.name}: ${r.text}`);
      assert.match(r.text, /^Error \(invalid_argument\): /, def.name);
      assert.match(r.text, /unknown parameter '__not_a_parameter'/, def.name);
      assert.match(r.text, new RegExp(`${def.name} has no such parameter and did nothing`), def.name);
      for (const param of Object.keys(def.input))
        assert.ok(r.text.includes(`'${param}'`), `${def.name}: ${param}`);
    }
  });

  test("a writing call with a near miss is refused whole: the suggestion is named, nothing is written", async () => {
    const r = await call("create_text_file", {
      relative_path: "made.txt",
      content: "x\n",
      overwrit: true,
      skip_checks: true,
    });
    assert.equal(r.isError, true);
    assert.match(
      r.text,
      /unknown parameters 'overwrit' \(did you mean 'overwrite'\?\), 'skip_checks': create_text_file has no such parameters and did nothing\. Its parameters: 'relative_path', 'content', 'overwrite'/,
    );
    assert.match(r.text, /Call it again with the parameters its input schema lists/);
    assert.equal(existsSync(join(tmp.dir, "made.txt")), false);
    // The same call without them is valid: the refusal was the unknown parameters' alone.
    const ok = await call("create_text_file", { relative_path: "made.txt", content: "x\n" });
    assert.equal(ok.isError, false, ok.text);
    assert.equal(existsSync(join(tmp.dir, "made.txt")), true);
  });

  test("the wrapper the terminal uses refuses the same way, before the tool runs", async () => {
    let ran = false;
    const probe = {
      ...allTools.find((t) => t.name === "list_dir")!,
      run: async () => {
        ran = true;
        return {};
      },
    } as unknown as ToolDef;
    const r = await runTool(probe, { relative_path: ".", recursiv: true }, { workspace, log });
    assert.equal(r.isError, true);
    assert.equal(ran, false);
    assert.match(
      r.content[0]?.text ?? "",
      /^Error \(invalid_argument\): Invalid arguments for list_dir: unknown parameter 'recursiv' \(did you mean 'recursive'\?\)/,
    );
  });
});
