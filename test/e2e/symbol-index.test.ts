/**
 * The persistent symbol index over the built CLI, across restarts of scalpel on one copy of
 * ts-search: the first run asks the server for every file's symbols and stores them; a restart
 * asks for none of the unchanged files (counted by the index's own line on stderr) and only for
 * the file changed on disk while scalpel was down; an edit through scalpel is visible to the next
 * find_symbol at once; a corrupted or torn cache entry is detected and rebuilt.
 */
import { strict as assert } from "node:assert";
import { createHash } from "node:crypto";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { copyFixture, type TempProject } from "../helpers/fixtures.js";
import { callOk, type FindSymbolResult, type ScalpelHandle, startScalpel } from "../helpers/mcp.js";

interface IndexCounts {
  files: number;
  reused: number;
  requested: number;
  corrupt: number;
}

const readyLine = /symbol index ready: (\d+) files .*reused (\d+), requested (\d+), corrupt (\d+)/;

/** The counts the index logs once its background build is done (since this process started). */
async function indexReady(h: ScalpelHandle, ms = 90_000): Promise<IndexCounts> {
  const until = Date.now() + ms;
  for (;;) {
    const m = readyLine.exec(h.stderr);
    if (m) return { files: +m[1]!, reused: +m[2]!, requested: +m[3]!, corrupt: +m[4]! };
    if (Date.now() > until) throw new Error(`no symbol index line on stderr:\n${h.stderr.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface Entry {
  path: string;
  rel: string;
  hash: string;
}

/** The index's entries on disk (one key folder: one server, one configuration). */
async function entries(dir: string): Promise<Entry[]> {
  const root = join(dir, ".scalpel", "cache", "symbols");
  const keys = (await readdir(root, { withFileTypes: true })).filter((d) => d.isDirectory());
  assert.equal(keys.length, 1, "one server key");
  const folder = join(root, keys[0]!.name);
  const out: Entry[] = [];
  for (const name of (await readdir(folder)).filter((n) => n.endsWith(".json"))) {
    const path = join(folder, name);
    const body = JSON.parse(await readFile(path, "utf8")) as { rel: string; hash: string };
    out.push({ path, rel: body.rel, hash: body.hash });
  }
  return out.sort((a, b) => a.rel.localeCompare(b.rel));
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

describe("persistent symbol index (e2e, typescript-language-server)", () => {
  let fx: TempProject;
  let h: ScalpelHandle | undefined;
  const files = ["src/config.ts", "src/labels.ts", "src/pricing.ts", "src/user.ts"];

  before(async () => {
    fx = await copyFixture("ts-search");
  });

  after(async () => {
    await h?.close();
    await fx.cleanup();
  });

  const find = (name: string) =>
    callOk<FindSymbolResult>(h!, "find_symbol", { name_path_pattern: name }).then((r) =>
      r.symbols.map((s) => `${s.relative_path}:${s.name_path}`),
    );

  it("the first run asks the server for every file and stores each entry", async () => {
    h = await startScalpel({ project: fx.dir });
    const counts = await indexReady(h);
    assert.deepEqual(counts, { files: 4, reused: 0, requested: 4, corrupt: 0 });
    const stored = await entries(fx.dir);
    assert.deepEqual(
      stored.map((e) => e.rel),
      files,
    );
    for (const e of stored) assert.equal(e.hash, sha256(await readFile(join(fx.dir, e.rel), "utf8")));
    await h.close();
    h = undefined;
  });

  it("after a restart, unchanged files are not asked again; a file changed meanwhile is", async () => {
    const user = join(fx.dir, "src/user.ts");
    await writeFile(
      user,
      `${await readFile(user, "utf8")}\n/** The name to greet a user with. */\nexport function greetingName(u: User): string {\n  return u.displayName();\n}\n`,
    );
    h = await startScalpel({ project: fx.dir });
    // Symbol tools answer from the index too: these add no request for unchanged files.
    assert.deepEqual(await find("formatAmount"), ["src/pricing.ts:formatAmount"]);
    assert.deepEqual(await find("greetingName"), ["src/user.ts:greetingName"]);
    const counts = await indexReady(h);
    assert.equal(counts.requested, 1, `only src/user.ts is asked again: ${JSON.stringify(counts)}`);
    assert.equal(counts.corrupt, 0);
    assert.ok(counts.reused >= 3, JSON.stringify(counts));
  });

  it("an edit through scalpel is visible to the next find_symbol at once, and stored", async () => {
    await callOk(h!, "rename_symbol", {
      name_path: "formatAmount",
      relative_path: "src/pricing.ts",
      new_name: "formatMoney",
    });
    assert.deepEqual(await find("formatMoney"), ["src/pricing.ts:formatMoney"]);
    assert.deepEqual(await find("formatAmount"), []);
    const hits = await callOk<{ symbols: Array<{ name_path: string }> }>(h!, "search_symbols", {
      query: "price display",
    });
    assert.ok(hits.symbols.some((s) => s.name_path === "formatMoney"));
    await h!.close();
    h = undefined;
    const pricing = (await entries(fx.dir)).find((e) => e.rel === "src/pricing.ts")!;
    assert.equal(pricing.hash, sha256(await readFile(join(fx.dir, "src/pricing.ts"), "utf8")));
  });

  it("a corrupted and a torn cache entry are detected and rebuilt", async () => {
    const before = await entries(fx.dir);
    const pricing = before.find((e) => e.rel === "src/pricing.ts")!;
    const labels = before.find((e) => e.rel === "src/labels.ts")!;
    // Symbols changed behind the checksum's back, and a file cut in the middle of a write.
    const body = JSON.parse(await readFile(pricing.path, "utf8")) as { symbols: unknown[] };
    body.symbols = [];
    await writeFile(pricing.path, JSON.stringify(body));
    const torn = await readFile(labels.path, "utf8");
    await writeFile(labels.path, torn.slice(0, torn.length / 2));

    h = await startScalpel({ project: fx.dir });
    const counts = await indexReady(h);
    assert.equal(counts.corrupt, 2, JSON.stringify(counts));
    assert.equal(counts.requested, 2, JSON.stringify(counts));
    assert.match(h.stderr, /symbol index entry of src\/pricing\.ts is corrupt/);
    assert.deepEqual(await find("formatMoney"), ["src/pricing.ts:formatMoney"]);
    assert.deepEqual(await find("renderPriceLabel"), ["src/labels.ts:renderPriceLabel"]);
    await h.close();
    h = undefined;
    const after = await entries(fx.dir);
    assert.deepEqual(
      after.map((e) => e.rel),
      files,
    );
    for (const e of after) assert.equal(e.hash, sha256(await readFile(join(fx.dir, e.rel), "utf8")));
  });
});
