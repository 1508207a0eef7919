// @backends tsserver native:full
/**
 * search_symbols on ts-search over the built CLI: a description ranks the symbols it describes
 * above one that merely carries a query word in its name ("price display": formatAmount and
 * renderPriceLabel, whose doc comments and names speak of price and display, above displayName,
 * whose name says "display" but nothing of price); kind and path filters; paging.
 */
import { strict as assert } from "node:assert";
import { after, before, describe, it } from "node:test";
import type { TempProject } from "../helpers/fixtures.js";
import { callOk, type ScalpelHandle, serveFixture, stopServing } from "../helpers/mcp.js";

interface Hit {
  name_path: string;
  kind: string;
  relative_path: string;
  start_line: number;
  end_line: number;
  score: number;
}
interface SearchResult {
  symbols: Hit[];
  complete: boolean;
  total?: number;
  /** `tool {json arguments}` of the call that gets the rest. */
  next?: string;
}

describe("search_symbols (e2e, typescript-language-server)", () => {
  let fx: TempProject;
  let h: ScalpelHandle;

  before(async () => {
    ({ fx, h } = await serveFixture("ts-search"));
  });

  after(() => stopServing(h, fx));

  const search = (args: Record<string, unknown>) => callOk<SearchResult>(h, "search_symbols", args);
  const rankOf = (r: SearchResult, namePath: string) => {
    const i = r.symbols.findIndex((s) => s.name_path === namePath);
    assert.ok(i >= 0, `${namePath} not among ${r.symbols.map((s) => s.name_path).join(", ")}`);
    return i;
  };

  it("ranks formatAmount and renderPriceLabel above displayName for 'price display'", async () => {
    const r = await search({ query: "price display" });
    assert.equal(r.complete, true);
    const display = rankOf(r, "User/displayName");
    assert.ok(rankOf(r, "formatAmount") < display, JSON.stringify(r.symbols));
    assert.ok(rankOf(r, "renderPriceLabel") < display, JSON.stringify(r.symbols));
    // Best first, each with its place and a score.
    for (let i = 1; i < r.symbols.length; i++) assert.ok(r.symbols[i - 1]!.score >= r.symbols[i]!.score);
    const hit = r.symbols.find((s) => s.name_path === "renderPriceLabel")!;
    assert.equal(hit.relative_path, "src/labels.ts");
    assert.equal(hit.kind, "Function");
    assert.ok(hit.start_line > 1 && hit.end_line > hit.start_line);
  });

  it("finds parseConfig first for 'parse config', by split names and a word's prefix", async () => {
    const r = await search({ query: "parse config" });
    assert.equal(r.symbols[0]?.name_path, "parseConfig", JSON.stringify(r.symbols));
    // "config" also meets "configuration" in ConfigError's doc and the ConfigError name itself.
    assert.ok(rankOf(r, "ConfigError") > 0);
  });

  it("filters by kind and by path", async () => {
    const methods = await search({ query: "price display", include_kinds: ["Method"] });
    assert.deepEqual(methods.symbols.map((s) => s.name_path).sort(), [
      "User/displayMode",
      "User/displayName",
    ]);
    const inPricing = await search({ query: "price display", relative_path: "src/pricing.ts" });
    assert.ok(inPricing.symbols.length > 0);
    assert.ok(inPricing.symbols.every((s) => s.relative_path === "src/pricing.ts"));
    assert.equal(inPricing.symbols[0]?.name_path, "formatAmount");
  });

  it("pages with max_matches and offset; total counts every hit", async () => {
    const all = await search({ query: "price display" });
    const first = await search({ query: "price display", max_matches: 2 });
    assert.equal(first.symbols.length, 2);
    assert.equal(first.total, all.symbols.length);
    assert.ok(first.next?.startsWith("search_symbols {"), `a cut list names its next call: ${first.next}`);
    const next = first.next ?? "";
    const nextArgs = JSON.parse(next.slice(next.indexOf("{"))) as Record<string, unknown>;
    assert.equal(nextArgs.offset, 2);
    const second = await search(nextArgs);
    assert.deepEqual(
      second.symbols.map((s) => s.name_path),
      all.symbols.slice(2, 4).map((s) => s.name_path),
    );
  });

  it("finds nothing for words no symbol has, and says so completely", async () => {
    const r = await search({ query: "zebra quantum" });
    assert.deepEqual(r.symbols, []);
    assert.equal(r.complete, true);
  });
});
