/** MCP resources and prompts over the built CLI, listed and read with the SDK client. */
import { strict as assert } from "node:assert";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { makeTempProject, type TempProject } from "../helpers/fixtures.js";
import { callOk, type ScalpelHandle, startScalpel } from "../helpers/mcp.js";

function text(contents: Array<{ uri: string; text?: unknown; blob?: unknown }>): string {
  assert.equal(contents.length, 1);
  const t = contents[0]?.text;
  assert.equal(typeof t, "string");
  return t as string;
}

describe("resources and prompts (e2e)", () => {
  let fx: TempProject;
  let h: ScalpelHandle;

  before(async () => {
    fx = await makeTempProject("scalpel-resources-e2e-");
    await mkdir(join(fx.dir, ".scalpel"));
    await writeFile(join(fx.dir, ".scalpel", "project.yml"), "name: shop\nlanguages: []\n");
    await writeFile(join(fx.dir, "package.json"), JSON.stringify({ scripts: { test: "node --test" } }));
    await mkdir(join(fx.dir, "src"));
    h = await startScalpel({ project: fx.dir, env: { SCALPEL_HOME: join(fx.base, "home") } });
    await callOk(h, "write_memory", { name: "overview", content: "# Shop\n" });
    await callOk(h, "write_memory", { name: "topics/build", content: "npm run build\n" });
  });
  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  it("lists the project summary, the memory template and one resource per memory", async () => {
    const { resources } = await h.client.listResources();
    const uris = resources.map((r) => r.uri).sort();
    assert.deepEqual(uris, [
      "scalpel://memory/overview",
      "scalpel://memory/topics%2Fbuild",
      "scalpel://project/summary",
    ]);
    const overview = resources.find((r) => r.uri === "scalpel://memory/overview");
    assert.equal(overview?.name, "overview");
    assert.equal(overview?.mimeType, "text/markdown");
    const { resourceTemplates } = await h.client.listResourceTemplates();
    assert.deepEqual(
      resourceTemplates.map((t) => t.uriTemplate),
      ["scalpel://memory/{name}"],
    );
  });

  it("the project summary has the facts and no host path", async () => {
    const r = await h.client.readResource({ uri: "scalpel://project/summary" });
    const body = text(r.contents);
    assert.ok(!body.includes(fx.base), body);
    const summary = JSON.parse(body) as Record<string, unknown>;
    assert.equal(summary.name, "shop");
    assert.equal(summary.read_only, false);
    assert.deepEqual(summary.languages, []);
    assert.deepEqual(summary.memories, ["overview", "topics/build"]);
    assert.equal(summary.memory_dir, ".scalpel/memories");
    assert.equal(summary.onboarding_performed, true);
    assert.deepEqual(summary.top_level, ["package.json", "src/"]);
    assert.deepEqual(summary.commands, ["npm test (package.json: node --test)"]);
  });

  it("memories are readable by URI, topic folders percent-encoded", async () => {
    const o = await h.client.readResource({ uri: "scalpel://memory/overview" });
    assert.equal(text(o.contents), "# Shop\n");
    assert.equal(o.contents[0]?.mimeType, "text/markdown");
    const t = await h.client.readResource({ uri: "scalpel://memory/topics%2Fbuild" });
    assert.equal(text(t.contents), "npm run build\n");
    await assert.rejects(h.client.readResource({ uri: "scalpel://memory/nope" }), /No memory named 'nope'/);
    await assert.rejects(
      h.client.readResource({ uri: "scalpel://memory/..%2F..%2Fetc%2Fpasswd" }),
      /not allowed/,
    );
  });

  it("lists the onboarding and refactor prompts with their arguments", async () => {
    const { prompts } = await h.client.listPrompts();
    const byName = new Map(prompts.map((p) => [p.name, p]));
    assert.deepEqual([...byName.keys()].sort(), ["onboarding", "refactor"]);
    const args = byName.get("refactor")?.arguments ?? [];
    assert.deepEqual(
      args.map((a) => [a.name, a.required === true]),
      [
        ["symbol", true],
        ["file", true],
        ["goal", false],
      ],
    );
  });

  it("the refactor prompt walks references → dry run → apply → diagnostics", async () => {
    const r = await h.client.getPrompt({
      name: "refactor",
      arguments: { symbol: "Money/multiplyByRate", file: "src/money.ts", goal: "rename to scaleBy" },
    });
    assert.equal(r.messages.length, 1);
    const content = r.messages[0]?.content;
    assert.equal(content?.type, "text");
    const body = content?.type === "text" ? content.text : "";
    assert.match(body, /Money\/multiplyByRate/);
    assert.match(body, /rename to scaleBy/);
    const order = [
      "find_referencing_symbols",
      "dry_run: true",
      "without dry_run",
      "get_diagnostics_for_file",
    ].map((s) => body.indexOf(s));
    assert.ok(
      order.every((i, k) => i >= 0 && (k === 0 || i > (order[k - 1] ?? -1))),
      `steps in order: ${order}\n${body}`,
    );
  });

  it("the onboarding prompt carries the onboarding instructions", async () => {
    const r = await h.client.getPrompt({ name: "onboarding" });
    const content = r.messages[0]?.content;
    const body = content?.type === "text" ? content.text : "";
    assert.match(body, /# Onboarding 'shop'/);
    assert.match(body, /npm test/);
    assert.match(body, /Memories already written: overview, topics\/build/);
    assert.ok(!body.includes(fx.base));
  });
});
