// @alone it counts the machine's processes (a server another file left running would be one)
// @backends tsserver native
/**
 * Process lifecycle and protocol hygiene of the built CLI in stdio mode:
 * - nothing but JSON-RPC is written to stdout (every line is parsed), even with debug logging;
 * - when the client disconnects (stdin closes) scalpel exits by itself and no language-server
 *   process survives (the whole process tree is collected before, and every pid checked after);
 * - the same on SIGTERM;
 * - get_current_config reports the running server; tools carry truthful annotations; --read-only
 *   registers no writing tool.
 */
import { strict as assert } from "node:assert";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename } from "node:path";
import { after, before, describe, it } from "node:test";
import { JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { copyFixture, type TempProject } from "../helpers/fixtures.js";
import {
  callOk,
  commandOf,
  descendants,
  isAlive,
  type ReferencesResult,
  type ScalpelHandle,
  startScalpel,
  waitForExit,
} from "../helpers/mcp.js";

interface Config {
  project: { name: string; languages: string[]; read_only: boolean } | null;
  servers: Array<{ language: string; command: string; status: string; pid?: number; restarts: number }>;
  tools: string[];
  version: string;
}

const WRITE_TOOLS = [
  "create_text_file",
  "replace_content",
  "replace_symbol_body",
  "insert_before_symbol",
  "insert_after_symbol",
  "rename_symbol",
  "safe_delete_symbol",
  "undo_edit",
  "write_memory",
  "edit_memory",
  "delete_memory",
];

/** Starts tsserver by asking something only it can answer; returns the config with its pid. */
async function warmUp(h: ScalpelHandle): Promise<{ config: Config; lsPid: number }> {
  const refs = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
    name_path: "Money/multiplyByRate",
    relative_path: "src/money.ts",
  });
  assert.equal(refs.complete, true);
  const config = await callOk<Config>(h, "get_current_config");
  const ts = config.servers.find((s) => s.language === "typescript");
  assert.ok(ts, `a typescript server in ${JSON.stringify(config.servers)}`);
  assert.equal(ts.status, "ready");
  assert.equal(typeof ts.pid, "number", JSON.stringify(ts));
  return { config, lsPid: ts.pid! };
}

/** The TMPDIR a process was started with (from /proc), which must be a folder of scalpel's. */
function tempDirOf(pid: number): string {
  const env = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
  const dir = env.find((v) => v.startsWith("TMPDIR="))?.slice("TMPDIR=".length);
  assert.ok(dir && basename(dir).startsWith("scalpel-server-"), `TMPDIR of ${pid}: ${dir}`);
  return dir;
}

function describeSurvivors(pids: number[]): string {
  return pids.map((p) => `${p}: ${commandOf(p)}`).join("\n");
}

describe("lifecycle (e2e)", () => {
  let fx: TempProject;

  before(async () => {
    fx = await copyFixture("ts-basic");
  });

  after(async () => {
    await fx?.cleanup();
  });

  it("writes nothing but JSON-RPC to stdout, even with debug logging", async () => {
    const h = await startScalpel({ project: fx.dir, env: { SCALPEL_LOG: "debug" } });
    try {
      await warmUp(h);
      await h.call("find_symbol", { name_path_pattern: "Money", include_body: true });
      await h.call("get_diagnostics_for_file", { relative_path: "src/wallet.ts" });
      await h.call("read_file", { relative_path: "src/nope.ts" }); // an error result
      await h.call("find_referencing_symbols", { name_path: "area", relative_path: "src/shapes.ts" }); // ambiguous
      await h.call("initial_instructions");
      await h.client.ping();
    } finally {
      await h.close();
    }
    assert.ok(h.stdoutLines.length >= 8, `saw ${h.stdoutLines.length} stdout lines`);
    const bad: string[] = [];
    for (const line of h.stdoutLines) {
      try {
        const msg = JSONRPCMessageSchema.parse(JSON.parse(line));
        if (msg.jsonrpc !== "2.0") bad.push(line);
      } catch {
        bad.push(line);
      }
    }
    assert.deepEqual(bad, [], "every stdout line is one JSON-RPC message");
    assert.deepEqual(h.badStdoutLines, []);
  });

  it("leaves no language-server process behind when the client disconnects", async () => {
    const h = await startScalpel({ project: fx.dir });
    let tree: number[] = [];
    let lsPid = -1;
    try {
      ({ lsPid } = await warmUp(h));
      tree = descendants(h.pid);
    } catch (e) {
      await h.close();
      throw e;
    }
    assert.ok(tree.includes(lsPid), `language server ${lsPid} is a descendant of scalpel ${h.pid}: ${tree}`);
    // tsls runs tsserver as a child; TypeScript 7's native server is one process.
    const least = process.env.SCALPEL_TS_BACKEND === "native" ? 1 : 2;
    assert.ok(
      tree.length >= least,
      `the whole server tree (${least}+ processes): ${describeSurvivors(tree)}`,
    );
    // tsls makes a folder in its temporary directory per tsserver and never removes it: it gets one
    // of its own, which it uses, and which is gone with it.
    const temp = process.env.SCALPEL_TS_BACKEND === "native" ? undefined : tempDirOf(lsPid);
    if (temp !== undefined) assert.ok(readdirSync(temp).length > 0, `the server wrote nothing in ${temp}`);
    const exit = await h.close();
    assert.equal(exit.exitedOnItsOwn, true, "scalpel exits by itself when stdin closes");
    const survivors = await waitForExit([h.pid, ...tree], 5000);
    assert.deepEqual(survivors, [], `still running:\n${describeSurvivors(survivors)}`);
    if (temp !== undefined) assert.equal(existsSync(temp), false, `${temp} was left behind`);
  });

  it("leaves no language-server process behind on SIGTERM", async () => {
    const h = await startScalpel({ project: fx.dir });
    let tree: number[] = [];
    try {
      const { lsPid } = await warmUp(h);
      tree = descendants(h.pid);
      assert.ok(tree.includes(lsPid));
      process.kill(h.pid, "SIGTERM");
      const survivors = await waitForExit([h.pid, ...tree], 5000);
      assert.deepEqual(survivors, [], `still running:\n${describeSurvivors(survivors)}`);
    } finally {
      await h.close();
      for (const p of tree) if (isAlive(p)) process.kill(p, "SIGKILL");
    }
  });

  it("get_current_config describes the project, its server and the tools", async () => {
    const h = await startScalpel({ project: fx.dir });
    try {
      const { config } = await warmUp(h);
      assert.ok(config.project, "a project is active");
      assert.ok(config.project.languages.includes("typescript"), JSON.stringify(config.project));
      assert.equal(config.project.read_only, false);
      const ts = config.servers.find((s) => s.language === "typescript")!;
      assert.equal(typeof ts.command, "string");
      assert.equal(ts.restarts, 0);
      assert.equal(typeof config.version, "string");
      const { tools } = await h.client.listTools();
      assert.deepEqual([...config.tools].sort(), tools.map((t) => t.name).sort());
      assert.ok(!JSON.stringify(config).includes(fx.dir), "no host path of the project in the config");
    } finally {
      await h.close();
    }
  });

  it("every tool declares its annotations; --read-only registers no writing tool", async () => {
    const h = await startScalpel({ project: fx.dir });
    try {
      const { tools } = await h.client.listTools();
      for (const t of tools) {
        const a = t.annotations ?? {};
        assert.equal(typeof a.readOnlyHint, "boolean", `${t.name} readOnlyHint`);
        assert.equal(typeof a.destructiveHint, "boolean", `${t.name} destructiveHint`);
        assert.equal(typeof a.idempotentHint, "boolean", `${t.name} idempotentHint`);
        assert.equal(a.openWorldHint, false, `${t.name} openWorldHint`);
        if (WRITE_TOOLS.includes(t.name)) assert.equal(a.readOnlyHint, false, `${t.name} writes`);
        assert.ok(t.outputSchema, `${t.name} declares an outputSchema`);
      }
    } finally {
      await h.close();
    }
    const ro = await startScalpel({ project: fx.dir, args: ["--read-only"] });
    try {
      const { tools } = await ro.client.listTools();
      const names = tools.map((t) => t.name);
      assert.deepEqual(
        names.filter((n) => WRITE_TOOLS.includes(n)),
        [],
      );
      assert.ok(names.includes("find_referencing_symbols"), names.join(", "));
      // activate_project writes no project file (it stays), but the registry and processes: not read-only.
      for (const t of tools)
        assert.equal(
          t.annotations?.readOnlyHint,
          t.name !== "activate_project",
          `${t.name} in read-only mode`,
        );
    } finally {
      await ro.close();
    }
  });
});
