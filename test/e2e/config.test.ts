/**
 * `.scalpel/project.yml` over the built CLI: a broken file makes activate_project fail with an error
 * that names the bad key; `memory_dir` moves the memory store; `read_only` removes every writing tool.
 */
import { strict as assert } from "node:assert";
import { access, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { allTools } from "../../src/tools/index.js";
import { writesFiles } from "../../src/tools/kit/define.js";
import { makeTempProject, type TempProject } from "../helpers/fixtures.js";
import { callOk, type ScalpelHandle, startScalpel } from "../helpers/mcp.js";

const writingTools = allTools.filter(writesFiles).map((t) => t.name);

async function project(base: string, name: string, yml: string): Promise<string> {
  const dir = join(base, name);
  await mkdir(join(dir, ".scalpel"), { recursive: true });
  await writeFile(join(dir, ".scalpel", "project.yml"), yml);
  await writeFile(join(dir, "README.md"), `# ${name}\n`);
  return dir;
}

describe("project.yml (e2e)", () => {
  let fx: TempProject;
  let env: Record<string, string>;
  let h: ScalpelHandle;

  before(async () => {
    fx = await makeTempProject("scalpel-config-e2e-");
    env = { SCALPEL_HOME: join(fx.base, "home") };
    await project(fx.base, "misspelt", "name: shop\nreadonly: true\n");
    await project(
      fx.base,
      "nested",
      "language_servers:\n  python:\n    command: x\n    extensions: [.py]\n    colour: red\n",
    );
    await project(fx.base, "badtype", "memory_dir: ../outside\n");
    await project(fx.base, "syntax", "name: [unclosed\n");
    await project(fx.base, "notes", "memory_dir: docs/notes\nlanguages: []\n");
    // No --project: the tests activate each project themselves.
    h = await startScalpel({ cwd: fx.base, env });
  });
  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  it("a broken project.yml makes activate_project fail, naming the bad key", async () => {
    const cases: Array<[string, RegExp]> = [
      ["misspelt", /unknown key 'readonly'/],
      ["nested", /'colour' under language_servers\.python/],
      ["badtype", /memory_dir: must be a path inside the project/],
      ["syntax", /not valid YAML at line \d+/],
    ];
    for (const [dir, expected] of cases) {
      const r = await h.call("activate_project", { project: dir });
      assert.equal(r.isError, true, `${dir}: ${r.text}`);
      assert.match(r.text, /invalid_config/);
      assert.match(r.text, expected);
      assert.match(r.text, /\.scalpel\/project\.yml/);
      assert.ok(!r.text.includes(fx.base), `no host path: ${r.text}`);
    }
    // Nothing became active.
    const cfg = await callOk<{ project: unknown }>(h, "get_current_config");
    assert.equal(cfg.project, null);
  });

  it("a broken project.yml given at start-up leaves the server running and explains itself", async () => {
    const broken = await startScalpel({ cwd: fx.base, env, project: join(fx.base, "misspelt") });
    try {
      const r = await broken.call("list_dir", { relative_path: "." });
      assert.equal(r.isError, true);
      assert.match(r.text, /no_active_project/);
      assert.match(r.text, /unknown key 'readonly'/);
      assert.ok(!r.text.includes(fx.base), `no host path: ${r.text}`);
      // Still usable: another project can be activated in the same session.
      await callOk(broken, "activate_project", { project: "notes" });
    } finally {
      await broken.close();
    }
  });

  it("activating the same project again re-reads an edited project.yml", async () => {
    const dir = await project(fx.base, "edited", "name: before\nlanguages: []\n");
    const first = await callOk<{ name: string }>(h, "activate_project", { project: dir });
    assert.equal(first.name, "before");
    await writeFile(join(dir, ".scalpel", "project.yml"), "name: after\nlanguages: []\n");
    const second = await callOk<{ name: string }>(h, "activate_project", { project: dir });
    assert.equal(second.name, "after");
  });

  it("memory_dir moves the memory store", async () => {
    await callOk(h, "activate_project", { project: "notes" });
    await callOk(h, "write_memory", { name: "overview", content: "notes live in docs/notes\n" });
    assert.equal(
      await readFile(join(fx.base, "notes", "docs", "notes", "overview.md"), "utf8"),
      "notes live in docs/notes\n",
    );
    await assert.rejects(access(join(fx.base, "notes", ".scalpel", "memories")));
    const listed = await callOk<{ memories: Array<{ name: string }> }>(h, "list_memories");
    assert.deepEqual(
      listed.memories.map((m) => m.name),
      ["overview"],
    );
  });

  it("read_only: true registers no writing tool, memory writes included", async () => {
    const dir = await project(fx.base, "frozen", "read_only: true\nlanguages: []\n");
    await mkdir(join(dir, ".scalpel", "memories"));
    await writeFile(join(dir, ".scalpel", "memories", "overview.md"), "frozen\n");
    const ro = await startScalpel({ project: dir, env });
    try {
      const names = (await ro.client.listTools()).tools.map((t) => t.name);
      assert.deepEqual(
        names.filter((n) => writingTools.includes(n)),
        [],
      );
      for (const t of ["read_memory", "list_memories", "find_symbol", "onboarding"])
        assert.ok(names.includes(t), t);
      const cfg = await callOk<{ project: { read_only: boolean }; tools: string[] }>(
        ro,
        "get_current_config",
      );
      assert.equal(cfg.project.read_only, true);
      assert.deepEqual(
        cfg.tools.filter((n) => writingTools.includes(n)),
        [],
      );
      assert.equal(
        (await callOk<{ content: string }>(ro, "read_memory", { name: "overview" })).content,
        "frozen\n",
      );
    } finally {
      await ro.close();
    }
    // Activated later in a running server, the same project disables them too.
    await callOk(h, "activate_project", { project: "frozen" });
    const names = (await h.client.listTools()).tools.map((t) => t.name);
    assert.deepEqual(
      names.filter((n) => writingTools.includes(n)),
      [],
    );
  });
});
