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
import { type ScalpelHandle, startScalpel, stopServing } from "../helpers/mcp.js";

interface Site {
  relative_path: string;
  line: number;
  column: number;
  containing_symbol: { name_path: string } | null;
  snippet?: string;
  import?: true;
}

describe("compact references: 500 sites grouped by file, import sites summarised", () => {
  let fx: TempProject;
  let h: ScalpelHandle;
  const callSites = new Map<string, { text: string; container: string }>();
  const importSites = new Set<string>();

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
        const key = `${rel}:${i + 1}:${m.index + 1}`;
        if (l.includes(" as cost")) importSites.add(`${rel}:${i + 1}:${l.indexOf("cost") + 1}`);
        if (i < head.length) importSites.add(key);
        else callSites.set(key, { text: l.trim(), container: `total${f}_${(i - head.length - 2) / 3}` });
      });
    }
    h = await startScalpel({ project: fx.dir, env: { SCALPEL_HOME: join(fx.base, "home") } });
  });

  after(() => stopServing(h, fx));

  it("pages within budget in both forms, grouped text, imports counted, all 500 once", async () => {
    const max = 20_000;
    assert.equal(importSites.size + callSites.size, 500, "the fixture has 500 sites");
    let args: Record<string, unknown> = { name_path: "price", relative_path: "src/price.ts" };
    const seen: Site[] = [];
    for (let page = 0; page < 100; page++) {
      const r = await h.call<Record<string, unknown>>("find_referencing_symbols", args);
      assert.equal(r.isError, false, r.text);
      const s = r.structured;
      assert.equal(s.total, 500);
      const json = JSON.stringify(s).length;
      assert.ok(json <= max, `page ${page}: JSON ${json} > ${max}`);
      assert.ok(r.text.length <= max, `page ${page}: text ${r.text.length} > ${max}`);
      const refs = s.references as Site[];
      seen.push(...refs);
      // The text: one header per file, "(imports: N)" for the file's import sites on this page,
      // one line "  LINE  [container  ]code" per other site, and no quoted import statement.
      const body = r.text.split("\n(truncated)")[0]!.split("\n").slice(1);
      const files = [...new Set(refs.map((x) => x.relative_path))];
      const headers = body.filter((l) => !l.startsWith(" "));
      assert.deepEqual(
        headers.map((l) => l.split(" ")[0]),
        files,
        "one header per file, in order",
      );
      for (const file of files) {
        const here = refs.filter((x) => x.relative_path === file);
        const imports = here.filter((x) => x.import).length;
        const header = headers.find((l) => l.startsWith(`${file}`))!;
        if (imports > 0) assert.ok(header.endsWith(`(imports: ${imports})`), header);
        else assert.doesNotMatch(header, /imports/);
      }
      assert.ok(!body.some((l) => /from "\.\.\/price"/.test(l)), "import statements are not quoted");
      const siteLines = body.filter((l) => l.startsWith("  "));
      assert.equal(siteLines.length, refs.filter((x) => !x.import).length, "one line per non-import site");
      for (const x of refs) {
        const key = `${x.relative_path}:${x.line}:${x.column}`;
        if (x.import) {
          assert.ok(importSites.has(key), `${key} is an import site`);
          assert.equal(x.snippet, undefined);
          assert.equal(x.containing_symbol, null);
          continue;
        }
        const truth = callSites.get(key);
        assert.ok(truth, `${key} is a call site`);
        assert.equal(x.containing_symbol?.name_path, truth.container);
        if (x.snippet !== undefined) {
          assert.equal(x.snippet, truth.text, "the site's own line, trimmed");
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
    const keys = seen.map((x) => `${x.relative_path}:${x.line}:${x.column}`);
    assert.equal(new Set(keys).size, keys.length, "each site once");
    assert.deepEqual(keys.sort(), [...importSites, ...callSites.keys()].sort(), "every site");
  });

  it("context_lines > 0 gives numbered lines around each site, indented under its line in the text", async () => {
    const r = await h.call<Record<string, unknown>>("find_referencing_symbols", {
      name_path: "price",
      relative_path: "src/price.ts",
      include_kinds: ["Function"],
      context_lines: 1,
      max_answer_chars: 200_000,
    });
    const refs = r.structured.references as Site[];
    assert.equal(refs.length, callSites.size, "the calls, all inside functions");
    const first = refs[0]!;
    assert.match(first.snippet!, new RegExp(`^${first.line - 1}: `));
    assert.ok(
      r.text.includes(
        `\n    ${first.line}: ${first.snippet!.split("\n")[1]!.slice(String(first.line).length + 2)}`,
      ),
    );
  });
});
