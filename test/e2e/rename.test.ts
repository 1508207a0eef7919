// @backends tsserver native
// @via daemon
/**
 * rename_symbol on ts-basic over the built CLI: the dry run writes nothing and returns the diff;
 * the real rename changes exactly the type-precise call sites and the definition (never the
 * unrelated same-named method), the fixture still type-checks, find_symbol sees the new name at
 * once, and CRLF/BOM files keep their bytes' conventions. undo_edit restores the tree.
 */
import { strict as assert } from "node:assert";
import { after, before, describe, it } from "node:test";
import { countOf, lineOf, lineText } from "../helpers/anchors.js";
import {
  assertCompiles,
  copyFixture,
  type ExpectedSite,
  hashTree,
  moneyRateSites,
  otherRateSites,
  readBytes,
  readText,
  runTsc,
  siteKeys,
  type TempProject,
} from "../helpers/fixtures.js";
import {
  callOk,
  type EditResult,
  editedFiles,
  type FindSymbolResult,
  type ReferencesResult,
  type ScalpelHandle,
  sitesOf,
  startScalpel,
} from "../helpers/mcp.js";

const OLD = "multiplyByRate";
const NEW = "scaleBy";

/** `line` with OLD replaced by NEW at the given 1-based columns (of the original line). */
function renameAt(line: string, columns: number[]): string {
  let out = line;
  for (const c of [...columns].sort((a, b) => b - a)) {
    assert.equal(out.slice(c - 1, c - 1 + OLD.length), OLD, `${OLD} at column ${c} of "${line}"`);
    out = out.slice(0, c - 1) + NEW + out.slice(c - 1 + OLD.length);
  }
  return out;
}

/** Where the sites are after the rename: later sites on a line shift by the change in length. */
function renamedSites(sites: ExpectedSite[]): ExpectedSite[] {
  return sites.map((s) => {
    const before = sites.filter(
      (o) => o.relative_path === s.relative_path && o.line === s.line && o.column < s.column,
    );
    return { ...s, column: s.column + before.length * (NEW.length - OLD.length) };
  });
}

describe("rename_symbol (e2e, typescript-language-server)", () => {
  let fx: TempProject;
  let h: ScalpelHandle;
  let sites: ExpectedSite[];
  let others: ExpectedSite[];
  let before0: Record<string, string>;
  let oldTexts: Record<string, string>;
  let declLine: number;
  const touched = ["src/format.ts", "src/main.ts", "src/money.ts", "src/report.ts", "src/wallet.ts"];

  before(async () => {
    fx = await copyFixture("ts-basic");
    sites = await moneyRateSites(fx.dir);
    others = await otherRateSites(fx.dir);
    oldTexts = {};
    for (const f of [...touched, "src/unrelated.ts"]) oldTexts[f] = await readText(fx.dir, f);
    declLine = lineOf(oldTexts["src/money.ts"]!, "multiplyByRate(rate: number): Money {");
    before0 = await hashTree(fx.dir);
    h = await startScalpel({ project: fx.dir });
  });

  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  const rename = (extra: Record<string, unknown> = {}) =>
    callOk<EditResult>(h, "rename_symbol", {
      name_path: "Money/multiplyByRate",
      relative_path: "src/money.ts",
      new_name: NEW,
      ...extra,
    });

  it("dry_run writes nothing and returns the diff of every touched file", async () => {
    const r = await rename({ dry_run: true });
    assert.equal(r.applied, false);
    assert.deepEqual(await hashTree(fx.dir), before0, "dry run left every file byte-identical");
    assert.deepEqual(
      editedFiles(r)
        .map((f) => f.relative_path)
        .sort(),
      touched,
    );
    assert.equal(typeof r.diff, "string");
    const diff = r.diff!;
    for (const f of touched) assert.ok(diff.includes(f), `diff mentions ${f}`);
    assert.ok(!diff.includes("src/unrelated.ts"), "diff leaves the unrelated class alone");
    const removed = diff.split("\n").filter((l) => l.startsWith("-") && !l.startsWith("---"));
    const added = diff.split("\n").filter((l) => l.startsWith("+") && !l.startsWith("+++"));
    const siteLines = new Set(sites.map((s) => `${s.relative_path}:${s.line}`));
    // one changed line per line holding a site, plus the declaration
    assert.equal(removed.length, siteLines.size + 1, diff);
    assert.equal(added.length, siteLines.size + 1, diff);
    assert.ok(
      added.every((l) => l.includes(NEW)),
      diff,
    );
    assert.ok(!diff.includes(fx.dir), "the diff carries no host path");
    for (const f of editedFiles(r)) {
      assert.equal(f.added_lines, f.removed_lines, JSON.stringify(f));
      assert.ok(f.added_lines > 0, JSON.stringify(f));
    }
  });

  it("renames exactly the call sites and the definition", async () => {
    const r = await rename();
    assert.equal(r.applied, true);
    assert.equal(typeof r.edit_id, "string");
    assert.deepEqual(
      editedFiles(r)
        .map((f) => f.relative_path)
        .sort(),
      touched,
    );

    const after1 = await hashTree(fx.dir);
    const changed = Object.keys(after1).filter((k) => after1[k] !== before0[k]);
    assert.deepEqual(changed.sort(), touched, "only the touched files changed on disk");

    for (const f of touched) {
      const now = await readText(fx.dir, f);
      const old = oldTexts[f]!;
      assert.equal(now.split("\n").length, old.split("\n").length, `${f}: line count unchanged`);
      const mine = sites.filter((s) => s.relative_path === f);
      for (const line of new Set(mine.map((s) => s.line))) {
        const cols = mine.filter((s) => s.line === line).map((s) => s.column);
        assert.equal(lineText(now, line), renameAt(lineText(old, line), cols), `${f}:${line}`);
      }
      const expectedNew = mine.length + (f === "src/money.ts" ? 1 : 0);
      assert.equal(countOf(now, NEW), expectedNew, `${f}: ${NEW} appears exactly at the sites`);
      const othersHere = others.filter((s) => s.relative_path === f).length;
      assert.equal(countOf(now, OLD), othersHere, `${f}: only the unrelated calls keep the old name`);
    }
    const money = await readText(fx.dir, "src/money.ts");
    assert.equal(lineText(money, declLine).trim(), `${NEW}(rate: number): Money {`);
    assert.equal(await readText(fx.dir, "src/unrelated.ts"), oldTexts["src/unrelated.ts"]);
  });

  it("the fixture still type-checks", () => {
    const r = runTsc(fx.dir);
    assert.equal(r.status, 0, r.output);
  });

  it("the language server sees the new name at once", async () => {
    const found = await callOk<FindSymbolResult>(h, "find_symbol", { name_path_pattern: `Money/${NEW}` });
    assert.deepEqual(
      found.symbols.map((s) => [s.relative_path, s.start_line]),
      [["src/money.ts", declLine]],
    );
    const gone = await callOk<FindSymbolResult>(h, "find_symbol", { name_path_pattern: `Money/${OLD}` });
    assert.deepEqual(gone.symbols, []);
    const refs = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
      name_path: `Money/${NEW}`,
      relative_path: "src/money.ts",
    });
    assert.equal(refs.complete, true);
    assert.deepEqual(siteKeys(sitesOf(refs)), siteKeys(renamedSites(sites)));
  });

  it("undo_edit restores every file byte for byte", async () => {
    const r = await callOk<EditResult>(h, "undo_edit", {});
    assert.equal(r.applied, true);
    assert.deepEqual(await hashTree(fx.dir), before0);
  });

  it("renaming a non-ASCII identifier keeps the BOM and the other text intact", async () => {
    const oldBytes = await readBytes(fx.dir, "src/unicode.ts");
    const r = await callOk<EditResult>(h, "rename_symbol", {
      name_path: "größe",
      relative_path: "src/unicode.ts",
      new_name: "maß",
    });
    assert.equal(r.applied, true);
    assert.deepEqual(
      editedFiles(r)
        .map((f) => f.relative_path)
        .sort(),
      ["src/main.ts", "src/unicode.ts"],
    );
    const bytes = await readBytes(fx.dir, "src/unicode.ts");
    assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf], "BOM kept");
    assert.notDeepEqual([...bytes.subarray(3, 6)], [0xef, 0xbb, 0xbf], "BOM not doubled");
    const expected = oldBytes.toString("utf8").replaceAll("größe", "maß");
    assert.equal(bytes.toString("utf8"), expected);
    const main = await readText(fx.dir, "src/main.ts");
    // biome-ignore lint/suspicious/noTemplateCurlyInString: this is fixture source text, not a template
    assert.ok(main.includes("${maß(2)}") && !main.includes("größe"), main);
    assertCompiles(fx.dir);
  });

  it("renaming in the CRLF file keeps CRLF line endings", async () => {
    const old = await readText(fx.dir, "src/crlf.ts");
    const r = await callOk<EditResult>(h, "rename_symbol", {
      name_path: "CrlfBox/describe",
      relative_path: "src/crlf.ts",
      new_name: "explain",
    });
    assert.equal(r.applied, true);
    const now = await readText(fx.dir, "src/crlf.ts");
    assert.equal(now, old.replace("describe(): string", "explain(): string"));
    assert.ok(!/(?<!\r)\n/.test(now), "every line still ends with CRLF");
    const main = await readText(fx.dir, "src/main.ts");
    assert.ok(main.includes("box.explain()"), main);
  });

  it("no result contained the host path of the project", () => {
    assert.deepEqual(h.hostPathLeaks, []);
  });
});
