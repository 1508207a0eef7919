/**
 * find_referencing_symbols over the built CLI on a generated project (30 modules, each calling
 * Core.compute once), on the backend SCALPEL_TS_BACKEND selects: after a restart on the index the
 * first run built, the first call answers complete with every site and its container — and, on the
 * native server (whose debug log names each request it handled), without opening the site files
 * in the server (measured before: one didOpen per site file, 56 s of a first call at 5k files).
 * Warm calls give the same answer from what they keep (texts, places, symbols); a site another
 * process adds is in the next call with its container; pages walked with `next` list every site
 * once under a small max_answer_chars.
 */
import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { generateLargeFixture, type LargeFixture } from "../helpers/fixtures.js";
import { callOk, filesOf, type ReferenceFile, type ScalpelHandle, startScalpel } from "../helpers/mcp.js";

interface RefsResult {
  files: ReferenceFile[];
  total: number;
  complete: boolean;
  truncated?: boolean;
  shown?: number;
  next?: string;
}

const native = process.env.SCALPEL_TS_BACKEND === "native";
const env = { SCALPEL_LOG: "debug" };

async function indexReady(h: ScalpelHandle, ms = 120_000): Promise<void> {
  const until = Date.now() + ms;
  while (!/symbol index ready/.test(h.stderr)) {
    if (Date.now() > until) throw new Error(`no symbol index line on stderr:\n${h.stderr.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Each file's sites as `line container`, in the answer's order. */
function sitesOf(r: RefsResult): string[] {
  return filesOf(r).flatMap((f) => [
    ...f.imports.map((l) => `${f.relative_path}:${l} import`),
    ...f.sites.map((s) => `${f.relative_path}:${s.line} ${s.container}`),
  ]);
}

describe(`references after a restart, kept between calls (e2e, ${native ? "native" : "tsserver"})`, () => {
  let dir: string;
  let fx: LargeFixture;
  let h: ScalpelHandle | undefined;
  const query = { name_path: "Core/compute", relative_path: "src/core.ts" };
  const refs = (extra: Record<string, unknown> = {}) =>
    callOk<RefsResult>(h!, "find_referencing_symbols", { ...query, ...extra });
  let expected: string[];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "scalpel-ref-sites-"));
    fx = await generateLargeFixture(dir, 30);
    expected = fx.computeSites.map((s) => {
      const id = /mod(\d+)\.ts$/.exec(s.relative_path)![1];
      return `${s.relative_path}:${s.line} helper${id}`;
    });
    const first = await startScalpel({ project: dir, env });
    await indexReady(first);
    await first.close();
  });

  after(async () => {
    await h?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("the first call after a restart lists every site with its container, complete", async () => {
    h = await startScalpel({ project: dir, env });
    const r = await refs();
    assert.equal(r.complete, true);
    assert.equal(r.total, fx.computeSites.length);
    assert.deepEqual(sitesOf(r), expected);
    if (native) {
      // The defining file only: the site files' symbols came from the index, not the server.
      const opens = h.stderr.match(/handled method 'textDocument\/didOpen'/g) ?? [];
      assert.ok(opens.length <= 2, `${opens.length} files opened in the server`);
    }
  });

  it("warm calls answer the same", async () => {
    const a = await refs();
    const b = await refs();
    assert.deepEqual(sitesOf(a), expected);
    assert.deepEqual(b, a);
  });

  it("a site another process adds is in the next call, with its container and code", async () => {
    const rel = "src/mod005.ts";
    const abs = join(dir, rel);
    const before = await readFile(abs, "utf8");
    const added = `${before}\nexport function extraCaller(): number {\n  return makeCore().compute(41);\n}\n`;
    const w = spawnSync(process.execPath, [
      "-e",
      "require('fs').writeFileSync(process.argv[1], process.argv[2])",
      abs,
      added,
    ]);
    assert.equal(w.status, 0, String(w.stderr));
    const line = added.split("\n").indexOf("  return makeCore().compute(41);") + 1;
    const r = await refs();
    assert.equal(r.total, fx.computeSites.length + 1);
    const file = filesOf(r).find((f) => f.relative_path === rel)!;
    const sites = file.sites.filter((s) => s.container === "extraCaller");
    assert.deepEqual(
      sites.map((s) => ({ line: s.line, code: s.code })),
      [{ line, code: "return makeCore().compute(41);" }],
    );
    expected = sitesOf(r);
  });

  it("pages walked with next list every site once under a small budget", async () => {
    const seen: string[] = [];
    let args: Record<string, unknown> = { max_answer_chars: 1200 };
    for (let page = 0; page < 50; page++) {
      const r = await refs(args);
      assert.equal(r.total, expected.length);
      seen.push(...sitesOf(r));
      if (!r.truncated) break;
      assert.ok(r.shown! < r.total, JSON.stringify(r).slice(0, 300));
      const m = /^find_referencing_symbols (\{.*\})$/.exec(r.next ?? "");
      assert.ok(m, `next: ${r.next}`);
      const { name_path: _n, relative_path: _r, ...rest } = JSON.parse(m[1]!) as Record<string, unknown>;
      args = rest;
    }
    // A page may end inside a file: the file's entry then repeats on the next page.
    assert.deepEqual(seen, expected);
  });
  it("a rename after another process edited a site file works on that file's new text", async () => {
    await refs();
    const rel = "src/mod007.ts";
    const abs = join(dir, rel);
    const old = await readFile(abs, "utf8");
    const edited = `// moved down\n// by an editor\n${old}`;
    const w = spawnSync(process.execPath, [
      "-e",
      "require('fs').writeFileSync(process.argv[1], process.argv[2])",
      abs,
      edited,
    ]);
    assert.equal(w.status, 0, String(w.stderr));
    const site = fx.computeSites.find((s) => s.relative_path === rel)!;
    const rename = { ...query, new_name: "computeValue" };
    const dry = await callOk<{ files: string[]; diff?: string }>(h!, "rename_symbol", {
      ...rename,
      dry_run: true,
      max_answer_chars: 200_000,
    });
    const hunk = dry.diff?.split(/^--- /m).find((f) => f.startsWith(`a/${rel}\n`));
    assert.ok(hunk, `no diff for ${rel}`);
    // The hunk starts 3 context lines above the site, which moved 2 lines down.
    assert.match(hunk, new RegExp(`^@@ -${site.line + 2 - 3},`, "m"));
    assert.equal(await readFile(abs, "utf8"), edited, "a dry run writes nothing");
    await callOk(h!, "rename_symbol", rename);
    const after = await readFile(abs, "utf8");
    assert.equal(after, edited.replace(/\.compute\(v\)/, ".computeValue(v)"));
  });
});
