// @backends tsserver native:full
/**
 * Compact references through the SDK client: one exported function referenced 500 times across 50
 * files (each an import — some multi-line, some `export … from` — and 9 calls). The text groups the
 * sites by file with one line each; import sites are counted per file, not quoted; `total` is 500
 * on every page; both forms (the JSON Claude Code shows, the text other hosts show) stay within the
 * budget on every page; following `next` lists all 500 exactly once. The truth is the generated
 * call sites.
 */
import { strict as assert } from "node:assert";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { makeTempProject, type TempProject, writeTsconfig } from "../helpers/fixtures.js";
import {
  type Reference,
  type ReferenceFile,
  type ScalpelHandle,
  sitesOf,
  startScalpel,
  stopServing,
} from "../helpers/mcp.js";

describe("compact references: 500 sites grouped by file, import sites summarised", () => {
  let fx: TempProject;
  let h: ScalpelHandle;
  /** `file:line` of each call (one per line) → its code and container. */
  const callSites = new Map<string, { text: string; container: string }>();
  /** `file:line` of each import site; a line may hold two (`export { price as cost } from`). */
  const importSites: string[] = [];

  before(async () => {
    fx = await makeTempProject("scalpel-compact-refs-");
    await writeTsconfig(fx.dir);
    await mkdir(join(fx.dir, "src", "users"), { recursive: true });
    await writeFile(
      join(fx.dir, "src", "price.ts"),
      "export function price(x: number): number {\n  return x * 2;\n}\n",
    );
    for (let f = 0; f < 50; f++) {
      const rel = `src/users/u${String(f).padStart(2, "0")}.ts`;
      // Three import forms, each file 10 sites: a one-line import, a multi-line import, and a
      // re-export with an import: three import sites, as tsserver reports the alias `cost` of
      // `export { price as cost }` as a reference of price too (measured), and two calls fewer.
      const head =
        f % 3 === 0
          ? ['import { price } from "../price";']
          : f % 3 === 1
            ? ["import {", "  price,", '} from "../price";']
            : ['export { price as cost } from "../price";', 'import { price } from "../price";'];
      const calls = f % 3 === 2 ? 7 : 9;
      const lines = [...head, ""];
      for (let k = 0; k < calls; k++)
        lines.push(`export function total${f}_${k}(v: number): number {`, `  return price(v) + ${k};`, "}");
      await writeFile(join(fx.dir, rel), `${lines.join("\n")}\n`);
      lines.forEach((l, i) => {
        const m = /\bprice\b(?!")/.exec(l);
        if (!m) return;
        const key = `${rel}:${i + 1}`;
        if (l.includes(" as cost")) importSites.push(key);
        if (i < head.length) importSites.push(key);
        else callSites.set(key, { text: l.trim(), container: `total${f}_${(i - head.length - 2) / 3}` });
      });
    }
    h = await startScalpel({ project: fx.dir, env: { SCALPEL_HOME: join(fx.base, "home") } });
  });

  after(() => stopServing(h, fx));

  it("pages within budget in both forms, grouped text, imports counted, all 500 once", async () => {
    const max = 20_000;
    assert.equal(importSites.length + callSites.size, 500, "the fixture has 500 sites");
    let args: Record<string, unknown> = { name_path: "price", relative_path: "src/price.ts" };
    const seen: Reference[] = [];
    for (let page = 0; page < 100; page++) {
      const r = await h.call<Record<string, unknown>>("find_referencing_symbols", args);
      assert.equal(r.isError, false, r.text);
      const s = r.structured;
      assert.equal(s.total, 500);
      const json = JSON.stringify(s).length;
      assert.ok(json <= max, `page ${page}: JSON ${json} > ${max}`);
      assert.ok(r.text.length <= max, `page ${page}: text ${r.text.length} > ${max}`);
      const files = s.files as ReferenceFile[];
      const refs = sitesOf({ files });
      seen.push(...refs);
      // The JSON: one entry per file, its path once, then one "LINE  CONTAINER  CODE" line per site.
      const paths = files.map((f) => f.split("\n")[0]!.split(" ")[0]!);
      assert.equal(new Set(paths).size, files.length, "each file once");
      for (const f of files)
        for (const site of f.split("\n").slice(1)) assert.match(site, /^\d+ {2}\S.* {2}\S/, site);
      if (s.shown !== undefined) assert.equal(s.shown, refs.length, "shown counts sites");
      // The text: one header per file, "imports: L, …" for the file's import sites on this page,
      // one line "  LINE  container  code" per other site, and no quoted import statement.
      const body = r.text.split("\n(truncated)")[0]!.split("\n").slice(1);
      const headers = body.filter((l) => !l.startsWith(" "));
      assert.deepEqual(
        headers.map((l) => l.split(" ")[0]),
        paths,
        "one header per file, in order",
      );
      for (const file of paths) {
        const here = refs.filter((x) => x.relative_path === file);
        const imports = here.filter((x) => x.import).map((x) => x.line);
        const header = headers.find((l) => l.startsWith(`${file}`))!;
        if (imports.length > 0) assert.ok(header.endsWith(`  imports: ${imports.join(", ")}`), header);
        else assert.doesNotMatch(header, /imports/);
      }
      assert.ok(!body.some((l) => /from "\.\.\/price"/.test(l)), "import statements are not quoted");
      const siteLines = body.filter((l) => l.startsWith("  "));
      assert.equal(siteLines.length, refs.filter((x) => !x.import).length, "one line per non-import site");
      for (const x of refs) {
        const key = `${x.relative_path}:${x.line}`;
        if (x.import) {
          assert.ok(importSites.includes(key), `${key} is an import site`);
          continue;
        }
        const truth = callSites.get(key);
        assert.ok(truth, `${key} is a call site`);
        assert.equal(x.container, truth.container);
        if (x.code !== undefined) {
          assert.equal(x.code, truth.text, "the site's own line, trimmed");
          assert.ok(
            siteLines.some((l) => l.startsWith(`  ${x.line}  `) && l.endsWith(`  ${truth.text}`)),
            `a line for ${key}`,
          );
        }
      }
      if (s.next === undefined) {
        assert.equal(s.truncated, undefined);
        break;
      }
      const next = String(s.next);
      assert.ok(r.text.includes(`next: ${next}`));
      args = JSON.parse(next.slice(next.indexOf(" ") + 1)) as Record<string, unknown>;
      if (args.max_answer_chars !== undefined) break; // every site listed, only snippets left out
    }
    const calls = seen.filter((x) => !x.import).map((x) => `${x.relative_path}:${x.line}`);
    assert.equal(new Set(calls).size, calls.length, "each call once");
    assert.deepEqual(calls.sort(), [...callSites.keys()].sort(), "every call");
    assert.deepEqual(
      seen
        .filter((x) => x.import)
        .map((x) => `${x.relative_path}:${x.line}`)
        .sort(),
      [...importSites].sort(),
      "every import site once (two on a re-export line)",
    );
  });

  it("context_lines > 0 gives numbered lines around each site, indented under its line in the text", async () => {
    const r = await h.call<Record<string, unknown>>("find_referencing_symbols", {
      name_path: "price",
      relative_path: "src/price.ts",
      include_kinds: ["Function"],
      context_lines: 1,
      max_answer_chars: 200_000,
    });
    const refs = sitesOf(r.structured as unknown as { files: ReferenceFile[] });
    assert.equal(refs.length, callSites.size, "the calls, all inside functions");
    const first = refs[0]!;
    assert.match(first.code!, new RegExp(`^${first.line - 1}: `));
    assert.ok(
      r.text.includes(
        `\n      ${first.line}: ${first.code!.split("\n")[1]!.slice(String(first.line).length + 2)}`,
      ),
    );
  });
});
