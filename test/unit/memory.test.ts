/**
 * The memory store on its own: name rules, round trips, topic folders, the size cap, and that no
 * name or symlink gets a read or write outside the memory folder.
 */
import * as assert from "node:assert/strict";
import { mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { AppError } from "../../src/core/errors.js";
import { memoryNameProblem, normalizeMemoryName } from "../../src/memory/names.js";
import { MemoryStore, maxMemoryBytes } from "../../src/memory/store.js";
import { Sandbox } from "../../src/security/sandbox.js";
import { hashTree, makeTempProject, type TempProject } from "../helpers/fixtures.js";

async function refused(p: Promise<unknown>, code: string): Promise<AppError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof AppError, `an AppError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    return e;
  }
  assert.fail(`expected ${code}`);
}

describe("memory names", () => {
  test("accepts letters, digits, _ - . and topic folders", () => {
    for (const ok of ["overview", "a", "topics/build", "v1.2-notes", "A_b-c.d/e_f", "x".repeat(128)]) {
      assert.equal(memoryNameProblem(ok), null, ok);
    }
  });

  test("refuses hostile and malformed names", () => {
    const bad = [
      "",
      "../x",
      "..",
      "a/../../b",
      "a/..",
      "/abs",
      "a//b",
      "a/",
      "./a",
      "a/./b",
      ".hidden",
      "a/.b",
      "a\u0000b",
      "a\\b",
      "a b",
      "ü",
      "~/x",
      "C:x",
      "x".repeat(129),
    ];
    for (const name of bad) assert.notEqual(memoryNameProblem(name), null, JSON.stringify(name));
  });

  test("a trailing .md is stripped; the error names the rule and never echoes a NUL raw", () => {
    assert.equal(normalizeMemoryName("overview.md"), "overview");
    assert.equal(normalizeMemoryName("topics/a.md"), "topics/a");
    assert.throws(
      () => normalizeMemoryName("a\u0000b"),
      (e: unknown) => e instanceof AppError && e.code === "invalid_argument" && !e.message.includes("\0"),
    );
  });
});

describe("memory store", () => {
  let tmp: TempProject;
  let store: MemoryStore;

  before(async () => {
    tmp = await makeTempProject("scalpel-memory-");
    await writeFile(join(tmp.base, "outside.md"), "outside\n");
    store = new MemoryStore(new Sandbox(tmp.dir), ".scalpel/memories");
  });
  after(() => tmp.cleanup());

  test("write, read, list, edit by rewrite, delete: plain markdown files under the folder", async () => {
    const content = "# Overview\n\nUnicode: ü → ✓\r\nCRLF kept\n";
    assert.deepEqual(await store.write("overview", content), {
      name: "overview",
      bytes: Buffer.byteLength(content),
    });
    await store.write("topics/build", "npm run build\n");
    assert.equal(await readFile(join(tmp.dir, ".scalpel/memories/overview.md"), "utf8"), content);
    assert.equal(
      await readFile(join(tmp.dir, ".scalpel/memories/topics/build.md"), "utf8"),
      "npm run build\n",
    );
    assert.deepEqual(await store.read("overview"), { name: "overview", content });
    const list = await store.list();
    assert.deepEqual(
      list.map((m) => [m.name, m.bytes]),
      [
        ["overview", Buffer.byteLength(content)],
        ["topics/build", 14],
      ],
    );
    for (const m of list) assert.ok(!Number.isNaN(Date.parse(m.updated)), m.updated);
    assert.deepEqual(await store.delete("topics/build"), { name: "topics/build", deleted: true });
    // The emptied topic folder goes with its last memory.
    assert.deepEqual(await readdir(join(tmp.dir, ".scalpel/memories")), ["overview.md"]);
    await refused(store.read("topics/build"), "memory_not_found");
    await refused(store.delete("topics/build"), "memory_not_found");
  });

  test("a missing memory names the existing ones", async () => {
    const e = await refused(store.read("nope"), "memory_not_found");
    assert.match(e.message, /overview/);
  });

  test("the size cap is a clear error and writes nothing", async () => {
    const e = await refused(store.write("big", "x".repeat(maxMemoryBytes + 1)), "too_large");
    assert.match(e.message, /256 KiB/);
    await refused(store.read("big"), "memory_not_found");
    await store.write("just-fits", "x".repeat(maxMemoryBytes));
    await store.delete("just-fits");
  });

  test("hostile names touch nothing outside the memory folder", async () => {
    const before = await hashTree(tmp.base);
    for (const name of ["../x", "/abs", "a/../../b", "", "a\u0000b", "../../outside", "..", "a//b"]) {
      await refused(store.write(name, "pwned"), "invalid_argument");
      await refused(store.read(name), "invalid_argument");
      await refused(store.delete(name), "invalid_argument");
    }
    assert.deepEqual(await hashTree(tmp.base), before);
  });

  test("symlinks inside the memory folder are not followed", async () => {
    const dir = join(tmp.dir, ".scalpel/memories");
    await symlink(join(tmp.base, "outside.md"), join(dir, "link.md"));
    await mkdir(join(tmp.dir, "src"), { recursive: true });
    await symlink(join(tmp.dir, "src"), join(dir, "linkdir"));
    await refused(store.read("link"), "path_outside_project");
    await refused(store.write("link", "pwned"), "path_outside_project");
    await refused(store.write("linkdir/x", "pwned"), "path_outside_project");
    await refused(store.delete("link"), "path_outside_project");
    assert.equal(await readFile(join(tmp.base, "outside.md"), "utf8"), "outside\n");
    assert.deepEqual(await readdir(join(tmp.dir, "src")), []);
    // Listing skips links too.
    assert.deepEqual(
      (await store.list()).map((m) => m.name),
      ["overview"],
    );
  });

  test("a memory folder that is a symlink out of the project is refused", async () => {
    const other = await makeTempProject("scalpel-memory-out-");
    try {
      await mkdir(join(other.base, "elsewhere"));
      await symlink(join(other.base, "elsewhere"), join(other.dir, "notes"));
      const s = new MemoryStore(new Sandbox(other.dir), "notes");
      await refused(s.write("x", "pwned"), "path_outside_project");
      assert.deepEqual(await s.list(), []);
      assert.deepEqual(await readdir(join(other.base, "elsewhere")), []);
    } finally {
      await other.cleanup();
    }
  });

  test("list ignores temp files, dot-files and files that are not valid names", async () => {
    const dir = join(tmp.dir, ".scalpel/memories");
    await writeFile(join(dir, ".overview.md.abcd.scalpel-tmp"), "partial");
    await writeFile(join(dir, "not a name.md"), "x");
    await writeFile(join(dir, "notes.txt"), "x");
    assert.deepEqual(
      (await store.list()).map((m) => m.name),
      ["overview"],
    );
  });

  test("an empty store lists nothing (no folder yet)", async () => {
    const other = await makeTempProject("scalpel-memory-empty-");
    try {
      assert.deepEqual(await new MemoryStore(new Sandbox(other.dir), ".scalpel/memories").list(), []);
    } finally {
      await other.cleanup();
    }
  });
});
