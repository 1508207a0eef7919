// @tsserver-only scalpel's own behaviour (protocol, limits, security), not the server's: one backend is enough
/**
 * Links over the built CLI. In the ts-secret fixture (`.env` and `src/vault/**` secret) a committed
 * symlink `docs/notes.txt → ../.env`, a hard link `docs/hard.txt` to `.env` and a hard link
 * `src/copy/keys.ts` to the secret `src/vault/keys.ts` (inside the tsconfig, so the language
 * server indexes it and sends locations into it) must reveal nothing through any tool: reads,
 * project-wide search, listings, symbol tools, references, edits and their diffs. Then a symlink
 * swapped in a loop by another process during 1,000 reads and 1,000 writes through the tools:
 * never one outside read or write.
 */
import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import { link, mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { copyFixture, hashTree, makeTempProject, type TempProject } from "../helpers/fixtures.js";
import { type Swapper, startSwapper } from "../helpers/link-swapper.js";
import { type ScalpelHandle, startScalpel } from "../helpers/mcp.js";
import { byTier } from "../helpers/tier.js";

/** In `.env` and in the vault file (and so in every link to them), in no other file. */
const MARKER = "VAULT_MARKER";
const MARKER_REGEX = "VAULT_MARK[E]R";
/** Rounds of the swap race, four calls each (the swapper spins a core meanwhile): 150 in the quick loop, 500 in CI. */
const ROUNDS = byTier(150, 500);

describe("links to secret files (e2e)", () => {
  let fx: TempProject;
  let h: ScalpelHandle;
  let treeBefore: Record<string, string>;
  const leaks: string[] = [];

  async function answer(tool: string, args: Record<string, unknown>) {
    const r = await h.call(tool, args);
    const all = `${r.text}\n${JSON.stringify(r.structured ?? null)}`;
    if (all.includes(MARKER)) leaks.push(`${tool}(${JSON.stringify(args)}): ${all.slice(0, 300)}`);
    return r;
  }

  async function refused(tool: string, args: Record<string, unknown>, code: RegExp): Promise<void> {
    const r = await answer(tool, args);
    assert.ok(r.isError, `${tool}(${JSON.stringify(args)}) was not refused: ${r.text.slice(0, 300)}`);
    assert.match(r.text, code, `${tool}: ${r.text}`);
  }

  before(async () => {
    fx = await copyFixture("ts-secret");
    await mkdir(join(fx.dir, "docs"));
    await mkdir(join(fx.dir, "src", "copy"));
    await symlink("../.env", join(fx.dir, "docs", "notes.txt"));
    await link(join(fx.dir, ".env"), join(fx.dir, "docs", "hard.txt"));
    await link(join(fx.dir, "src", "vault", "keys.ts"), join(fx.dir, "src", "copy", "keys.ts"));
    treeBefore = await hashTree(fx.dir);
    h = await startScalpel({ project: fx.dir });
  });
  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  it("control: the linked files carry the marker", async () => {
    for (const rel of ["docs/notes.txt", "docs/hard.txt", "src/copy/keys.ts"]) {
      assert.ok((await readFile(join(fx.dir, rel), "utf8")).includes(MARKER), rel);
    }
  });

  it("reads and edits of the links are refused, dry runs included (no diff)", async () => {
    await refused("read_file", { relative_path: "docs/notes.txt" }, /secret_file/);
    for (const rel of ["docs/hard.txt", "src/copy/keys.ts"]) {
      await refused("read_file", { relative_path: rel }, /unsupported_file.*hard link/);
    }
    for (const rel of ["docs/notes.txt", "docs/hard.txt", "src/copy/keys.ts"]) {
      const code = rel === "docs/notes.txt" ? /secret_file/ : /unsupported_file/;
      await refused(
        "replace_content",
        { relative_path: rel, needle: "VAULT", replacement: "x", dry_run: true },
        code,
      );
      await refused(
        "create_text_file",
        { relative_path: rel, content: "x\n", overwrite: true, dry_run: true },
        code,
      );
      await refused("get_symbols_overview", { relative_path: rel }, code);
    }
    await refused(
      "find_symbol",
      { name_path_pattern: "vaultLabel", relative_path: "src/copy/keys.ts" },
      /unsupported_file/,
    );
  });

  it("project-wide search, listings and symbol walks show no content of them", async () => {
    const search = await answer("search_for_pattern", { pattern: MARKER_REGEX });
    assert.ok(!search.isError, search.text);
    assert.doesNotMatch(search.text, /docs\/|src\/copy\//, "a linked secret was searched");
    const listing = await answer("list_dir", { relative_path: ".", recursive: true });
    assert.match(listing.text, /hard\.txt/, "names may be listed");
    await answer("find_file", { file_mask: "*.txt", relative_path: "." });
    await answer("find_file", { file_mask: "keys.ts", relative_path: "src" });
    await answer("get_symbols_overview", { relative_path: "src", depth: 2 });
    await answer("find_symbol", { name_path_pattern: "vaultLabel", include_body: true });
    await answer("find_symbol", {
      name_path_pattern: "VAULT_MARKER_Sealer",
      substring_matching: true,
      include_body: true,
    });
  });

  it("references into the hard-linked copy reveal nothing of it", async () => {
    // `normalize` is called by the vault file and so by its hard-linked copy, which the server indexes.
    const r = await answer("find_referencing_symbols", {
      name_path: "normalize",
      relative_path: "src/shapes.ts",
    });
    assert.ok(!r.isError, r.text);
    assert.doesNotMatch(r.text, /src\/copy\/keys\.ts.*VAULT|VAULT.*src\/copy/);
    await answer("find_implementations", { name_path: "Sealer", relative_path: "src/shapes.ts" });
  });

  it("no answer held linked secret content, and nothing changed", async () => {
    assert.deepEqual(leaks, []);
    assert.deepEqual(h.hostPathLeaks, []);
    assert.deepEqual(await hashTree(fx.dir), treeBefore);
  });
});

describe(`a symlink swapped in a loop during ${2 * ROUNDS} reads and ${2 * ROUNDS} writes (e2e)`, () => {
  let tmp: TempProject;
  let h: ScalpelHandle;
  let swapper: Swapper | undefined;
  const OUTSIDE = "OUTSIDE_MARKER the outside file\n";

  before(async () => {
    tmp = await makeTempProject("scalpel-link-race-");
    await writeFile(join(tmp.dir, "inside.txt"), "inside 0\n");
    await writeFile(join(tmp.base, "outside.txt"), OUTSIDE);
    h = await startScalpel({ project: tmp.dir });
  });
  after(async () => {
    await swapper?.stop();
    await h?.close();
    await tmp?.cleanup();
  });

  it("never returns the outside content and never writes the outside file", async (t) => {
    swapper = await startSwapper(spawn, tmp.dir, "link.txt", "inside.txt", join(tmp.base, "outside.txt"));
    const tally = { read: 0, written: 0, refused: new Map<string, number>() };
    const count = (text: string) => {
      const code = /^Error \((\w+)\)/.exec(text)?.[1] ?? text.slice(0, 80);
      tally.refused.set(code, (tally.refused.get(code) ?? 0) + 1);
    };
    // Four calls at a time, as hosts send them: two reads and two writes.
    for (let i = 0; i < ROUNDS; i++) {
      const calls = [0, 1].flatMap((k) => [
        h.call("read_file", { relative_path: "link.txt" }).then((r) => {
          assert.ok(!r.text.includes("OUTSIDE_MARKER"), `read ${i}.${k} returned the outside file`);
          if (r.isError) count(r.text);
          else tally.read++;
        }),
        h
          .call("create_text_file", {
            relative_path: "link.txt",
            content: `inside ${i}.${k}\n`,
            overwrite: true,
          })
          .then((r) => {
            if (r.isError) count(r.text);
            else tally.written++;
          }),
      ]);
      await Promise.all(calls);
    }
    const swaps = await swapper.stop();
    const shown = JSON.stringify({ ...tally, refused: [...tally.refused] });
    t.diagnostic(`${swaps} swaps; ${shown}`);
    assert.equal(await readFile(join(tmp.base, "outside.txt"), "utf8"), OUTSIDE, "the outside file changed");
    assert.ok(swaps > 200, `the swapper ran only ${swaps} swaps`);
    assert.ok(tally.read > 0 && tally.written > 0, shown);
    for (const code of tally.refused.keys()) {
      assert.ok(
        ["path_outside_project", "edit_conflict", "file_not_found"].includes(code),
        `${code}: ${shown}`,
      );
    }
    assert.match(await readFile(join(tmp.dir, "inside.txt"), "utf8"), /^inside \d+\.\d\n$/);
    assert.deepEqual(h.hostPathLeaks, []);
    // The server is still answering normally.
    const r = await h.call("read_file", { relative_path: "inside.txt" });
    assert.ok(!r.isError, r.text);
  });
});
