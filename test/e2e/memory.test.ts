/**
 * Memories over the built CLI: they outlive the server process, are plain markdown files in the
 * memory folder, hostile names write nothing anywhere, and two server processes writing at the
 * same time both succeed.
 */
import { strict as assert } from "node:assert";
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { after, before, describe, it } from "node:test";
import { makeTempProject, type TempProject } from "../helpers/fixtures.js";
import { callOk, type ScalpelHandle, startScalpel } from "../helpers/mcp.js";

interface MemoryList {
  memories: Array<{ name: string; bytes: number; updated: string }>;
}

/** Every file under `dir` (relative path → content), `.scalpel/` included. */
async function snapshot(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const walk = async (abs: string) => {
    for (const e of await readdir(abs, { withFileTypes: true })) {
      const full = join(abs, e.name);
      if (e.isDirectory()) await walk(full);
      else out.set(relative(dir, full), e.isFile() ? await readFile(full, "utf8") : "(link)");
    }
  };
  await walk(dir);
  return out;
}

const memories: Record<string, string> = {
  overview: "# Overview\n\nA shop. Entry point: `src/main.ts`.\n",
  "topics/build": "npm run build\r\nnpm test\r\n",
  "v1.2-notes": "Unicode survives: ü → ✓ 🚀\n\ttabs and trailing spaces   \n",
  empty: "",
};

describe("memories (e2e)", () => {
  let fx: TempProject;
  let env: Record<string, string>;
  let h: ScalpelHandle | undefined;
  const memDir = () => join(fx.dir, ".scalpel", "memories");

  before(async () => {
    fx = await makeTempProject("scalpel-memory-e2e-");
    env = { SCALPEL_HOME: join(fx.base, "home") };
  });
  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  it("memories written by one server process are read back unchanged by the next", async () => {
    const first = await startScalpel({ project: fx.dir, env });
    try {
      for (const [name, content] of Object.entries(memories)) {
        const r = await callOk<{ name: string; bytes: number }>(first, "write_memory", { name, content });
        assert.deepEqual(r, { name, bytes: Buffer.byteLength(content) });
      }
    } finally {
      await first.close();
    }
    h = await startScalpel({ project: fx.dir, env });
    for (const [name, content] of Object.entries(memories)) {
      assert.deepEqual(await callOk(h, "read_memory", { name }), { name, content });
      // Plain markdown on disk, byte for byte.
      assert.equal(await readFile(join(memDir(), `${name}.md`), "utf8"), content);
    }
    const list = await callOk<MemoryList>(h, "list_memories");
    assert.deepEqual(
      list.memories.map((m) => [m.name, m.bytes]),
      Object.entries(memories)
        .map(([n, c]) => [n, Buffer.byteLength(c)] as const)
        .sort(([a], [b]) => (a < b ? -1 : 1)),
    );
    for (const m of list.memories) assert.ok(Date.parse(m.updated) > Date.now() - 600_000, m.updated);
    assert.deepEqual(h.hostPathLeaks, []);
  });

  it("edit_memory replaces literal and regex needles and refuses what it cannot do", async () => {
    assert.ok(h);
    const r = await callOk<{ name: string; bytes: number }>(h, "edit_memory", {
      name: "overview",
      needle: "A shop.",
      replacement: "A small shop.",
    });
    assert.equal(r.name, "overview");
    await callOk(h, "edit_memory", {
      name: "overview",
      needle: "`(src/\\w+)\\.ts`",
      replacement: "`$1.tsx`",
      mode: "regex",
    });
    const expected = "# Overview\n\nA small shop. Entry point: `src/main.tsx`.\n";
    assert.equal(
      (await callOk<{ content: string }>(h, "read_memory", { name: "overview" })).content,
      expected,
    );
    assert.equal(r.bytes, Buffer.byteLength(expected.replace(".tsx", ".ts")));

    const noMatch = await h.call("edit_memory", { name: "overview", needle: "absent", replacement: "x" });
    assert.equal(noMatch.isError, true);
    assert.match(noMatch.text, /no_match/);
    const badRegex = await h.call("edit_memory", {
      name: "overview",
      needle: "(unclosed",
      replacement: "x",
      mode: "regex",
    });
    assert.equal(badRegex.isError, true);
    assert.match(badRegex.text, /invalid_regex/);
    const missing = await h.call("edit_memory", { name: "nope", needle: "a", replacement: "b" });
    assert.match(missing.text, /memory_not_found/);
    assert.equal(await readFile(join(memDir(), "overview.md"), "utf8"), expected);
  });

  it("delete_memory removes the file (and its emptied topic folder)", async () => {
    assert.ok(h);
    assert.deepEqual(await callOk(h, "delete_memory", { name: "topics/build" }), {
      name: "topics/build",
      deleted: true,
    });
    assert.deepEqual((await readdir(memDir())).sort(), ["empty.md", "overview.md", "v1.2-notes.md"]);
    const again = await h.call("read_memory", { name: "topics/build" });
    assert.equal(again.isError, true);
    assert.match(again.text, /memory_not_found/);
    assert.match((await h.call("delete_memory", { name: "topics/build" })).text, /memory_not_found/);
  });

  it("refuses hostile names and writes nothing anywhere", async () => {
    assert.ok(h);
    const beforeAll = await snapshot(fx.base);
    const hostile = [
      "../x",
      "/abs",
      "a/../../b",
      "",
      "a\u0000b",
      "../../outside",
      "..",
      "a//b",
      "/etc/passwd",
    ];
    const failures: string[] = [];
    for (const name of hostile) {
      for (const [tool, args] of [
        ["write_memory", { name, content: "pwned" }],
        ["read_memory", { name }],
        ["edit_memory", { name, needle: "a", replacement: "b" }],
        ["delete_memory", { name }],
      ] as const) {
        const r = await h.call(tool, args);
        if (!r.isError) failures.push(`${tool}(${JSON.stringify(name)}) was not refused: ${r.text}`);
      }
    }
    const big = await h.call("write_memory", { name: "big", content: "x".repeat(256 * 1024 + 1) });
    assert.match(big.text, /too_large/);
    assert.deepEqual(failures, []);
    assert.deepEqual(await snapshot(fx.base), beforeAll);
    assert.deepEqual(h.hostPathLeaks, []);
  });

  it("two server processes writing at once: different memories all land, same name is never torn", async () => {
    const a = await startScalpel({ project: fx.dir, env });
    const b = await startScalpel({ project: fx.dir, env });
    try {
      const n = 15;
      const body = (who: string, i: number) => `# ${who} ${i}\n${`${who}-line\n`.repeat(200)}`;
      const writes = (who: string, hh: ScalpelHandle) =>
        Array.from({ length: n }, async (_, i) => {
          await callOk(hh, "write_memory", { name: `race/${who}-${i}`, content: body(who, i) });
          await callOk(hh, "write_memory", { name: "race/shared", content: body(who, i) });
        });
      await Promise.all([...writes("a", a), ...writes("b", b)]);
      const names = (await callOk<MemoryList>(a, "list_memories")).memories.map((m) => m.name);
      for (const who of ["a", "b"]) {
        for (let i = 0; i < n; i++) {
          assert.ok(names.includes(`race/${who}-${i}`), `race/${who}-${i} in ${names.join(", ")}`);
          const got = await callOk<{ content: string }>(b, "read_memory", { name: `race/${who}-${i}` });
          assert.equal(got.content, body(who, i));
        }
      }
      const shared = (await callOk<{ content: string }>(a, "read_memory", { name: "race/shared" })).content;
      const candidates = ["a", "b"].flatMap((who) => Array.from({ length: n }, (_, i) => body(who, i)));
      assert.ok(candidates.includes(shared), "the shared memory is one whole write, not a mix");
      // No temp files left behind.
      assert.deepEqual(
        (await readdir(join(memDir(), "race"))).filter((f) => f.startsWith(".")),
        [],
      );
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
