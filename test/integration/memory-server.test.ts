/**
 * Memory tools, read-only projects and the registry through an in-process MCP client ⇄ server pair
 * (InMemoryTransport): a project whose config says `read_only: true`, activated after start-up,
 * disables every writing tool (the client hears tools/list_changed) and a writable project brings
 * them back.
 */
import * as assert from "node:assert/strict";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { log } from "../../src/core/log.js";
import { allTools } from "../../src/tools/index.js";
import { writesFiles } from "../../src/tools/kit/define.js";
import { Workspace } from "../../src/workspace/workspace.js";
import { makeTempProject, type TempProject } from "../helpers/fixtures.js";
import { callInProcess, closeInProcess, connectInProcess } from "../helpers/in-process.js";

const writingTools = allTools.filter(writesFiles).map((t) => t.name);

describe("memory tools and read-only projects (in-process)", () => {
  let tmp: TempProject;
  let client: Client;
  let workspace: Workspace;
  let listChanged = 0;
  const savedHome = process.env.SCALPEL_HOME;

  const call = (name: string, args: Record<string, unknown> = {}) => callInProcess(client, name, args);
  const toolNames = async () => (await client.listTools()).tools.map((t) => t.name);

  before(async () => {
    tmp = await makeTempProject("scalpel-memory-int-");
    process.env.SCALPEL_HOME = join(tmp.base, "home");
    await mkdir(join(tmp.base, "ro", ".scalpel"), { recursive: true });
    await writeFile(join(tmp.base, "ro", ".scalpel", "project.yml"), "name: frozen\nread_only: true\n");
    await mkdir(join(tmp.base, "ro", ".scalpel", "memories"));
    await writeFile(join(tmp.base, "ro", ".scalpel", "memories", "overview.md"), "# Frozen\n");
    // The folder the tests activate projects in, as `--projects-in` names it.
    workspace = new Workspace({ readOnly: false, cwd: tmp.base, projectsIn: [tmp.base] }, log);
    client = await connectInProcess(workspace, "memory-int", (c) =>
      c.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        listChanged++;
      }),
    );
  });

  after(async () => {
    await closeInProcess(client, workspace, savedHome);
    await tmp?.cleanup();
  });

  test("memory tools need an active project", async () => {
    const r = await call("list_memories");
    assert.equal(r.isError, true);
    assert.match(r.text, /no_active_project/);
  });

  test("a writable project: every writing tool is listed; memories round-trip", async () => {
    const a = await call("activate_project", { project: "project" });
    assert.equal(a.isError, false, a.text);
    const names = await toolNames();
    for (const w of writingTools) assert.ok(names.includes(w), `${w} in ${names.join(", ")}`);
    assert.deepEqual((await call("write_memory", { name: "notes", content: "a b a" })).structured, {
      name: "notes",
      bytes: 5,
    });
    const multi = await call("edit_memory", { name: "notes", needle: "a", replacement: "x" });
    assert.match(multi.text, /multiple_matches/);
    const regexAll = await call("edit_memory", {
      name: "notes",
      needle: "(a)",
      replacement: "<$1>",
      mode: "regex",
      allow_multiple: true,
    });
    assert.equal(regexAll.isError, false, regexAll.text);
    assert.equal(await readFile(join(tmp.dir, ".scalpel", "memories", "notes.md"), "utf8"), "<a> b <a>");
  });

  test("activating a read_only project disables the writing tools, and they come back after", async () => {
    const before = listChanged;
    const a = await call("activate_project", { project: "ro" });
    assert.equal(a.isError, false, a.text);
    assert.equal(a.structured?.name, "frozen");
    assert.deepEqual(a.structured?.memories, ["overview"]);
    assert.match(String(a.structured?.instructions), /read-only/);
    const names = await toolNames();
    assert.deepEqual(
      names.filter((n) => writingTools.includes(n)),
      [],
    );
    assert.ok(names.includes("read_memory"));
    assert.ok(listChanged > before, "the client was told that the tool list changed");
    const cfg = await call("get_current_config");
    assert.deepEqual(
      ((cfg.structured?.tools ?? []) as string[]).filter((n) => writingTools.includes(n)),
      [],
    );
    // A disabled tool is refused by the SDK; nothing is written.
    const w = await call("write_memory", { name: "x", content: "y" }).catch((e: unknown) => ({
      isError: true,
      text: String(e),
      structured: undefined,
    }));
    assert.equal(w.isError, true);
    // Readable, and (the project is not trusted) quoted as the repository's text.
    const frozen = (await call("read_memory", { name: "overview" })).structured;
    assert.equal(frozen?.untrusted, true);
    assert.match(String(frozen?.content), /^Untrusted repository text .*<<<# Frozen\n>>>$/s);

    const back = await call("activate_project", { project: "project" });
    assert.equal(back.isError, false, back.text);
    const again = await toolNames();
    for (const t of writingTools) assert.ok(again.includes(t), t);
  });

  test("projects activated by path can be activated by name", async () => {
    const r = await call("activate_project", { project: "frozen" });
    assert.equal(r.isError, false, r.text);
    assert.equal(r.structured?.name, "frozen");
    const unknown = await call("activate_project", { project: "no-such-project" });
    assert.equal(unknown.isError, true);
    assert.match(
      unknown.text,
      /No project is registered under the name 'no-such-project'.*registered: frozen, project/,
    );
    assert.ok(!unknown.text.includes(tmp.base), unknown.text);
  });
});
