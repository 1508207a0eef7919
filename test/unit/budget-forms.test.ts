// The budget holds for both forms a client may show: the JSON of structuredContent (Claude Code
// gives the model only that) and the text (other hosts read only that). A tool whose text is the
// larger form is cut by its text, one whose JSON is larger by its JSON; cuts stay at whole items
// and a walk with `next` lists every item once. Also the compact references text and import sites.
import assert from "node:assert/strict";
import { test } from "node:test";
import { z } from "zod";
import { isImportSite } from "../../src/references/import-sites.js";
import { groupReferences, referenceUnits, sitesOfFile, withOwnLines } from "../../src/references/listing.js";
import { maxSiteLine, type Reference, siteLine } from "../../src/references/sites.js";
import { findReferencingSymbolsTool } from "../../src/tools/find-referencing-symbols.js";
import { defineTool, readOnly, type ToolDef } from "../../src/tools/kit/define.js";
import { fitBudget, renderAnswer } from "../../src/tools/kit/run.js";

function pagedTool(render: (items: string[]) => string): ToolDef {
  return defineTool({
    name: "list_things",
    title: "List things",
    description: "test tool",
    input: { offset: z.number().int().min(0).default(0) },
    output: { items: z.array(z.string()) },
    annotations: readOnly,
    paging: { items: "items", noun: "thing" },
    async run() {
      return { items: [] };
    },
    render: (r) => render(r.items),
  }) as unknown as ToolDef;
}

const items = Array.from({ length: 300 }, (_, i) => `thing-${String(i).padStart(3, "0")}`);
const answerFrom = (offset: number) => ({ items: items.slice(offset), total: items.length });

/** Walks the pages with each answer's `next`; checks both forms on every page. */
function walk(def: ToolDef, max: number): string[] {
  const seen: string[] = [];
  let offset = 0;
  for (let page = 0; page < 1000; page++) {
    const fitted = fitBudget(def, answerFrom(offset), max, offset > 0 ? { offset } : {});
    const json = JSON.stringify(fitted).length;
    const text = renderAnswer(def, fitted).length;
    assert.ok(json <= max, `page ${page}: JSON ${json} > ${max}`);
    assert.ok(text <= max, `page ${page}: text ${text} > ${max}`);
    seen.push(...(fitted.items as string[]));
    if (fitted.next === undefined) return seen;
    const next = JSON.parse(String(fitted.next).replace(/^list_things /, "")) as { offset: number };
    assert.equal(next.offset, offset + (fitted.shown as number));
    offset = next.offset;
  }
  throw new Error("no last page");
}

test("a text larger than its JSON: the text is what gets cut, at whole items", () => {
  // Each item rendered as a 60-character line: the text is ~4x the JSON.
  const def = pagedTool((xs) => xs.map((x) => `${x} ${"·".repeat(50)}`).join("\n"));
  const whole = answerFrom(0);
  const max = 4000;
  assert.ok(JSON.stringify(whole).length < max, "the JSON alone would fit");
  assert.ok(renderAnswer(def, whole).length > max, "the text does not");
  const fitted = fitBudget(def, whole, max);
  assert.equal(fitted.truncated, true);
  assert.ok((fitted.shown as number) > 0 && (fitted.shown as number) < items.length);
  assert.match(String(fitted.hint), /^Listed 1–\d+ of 300 things \(to fit max_answer_chars=4000\)/);
  assert.deepEqual(walk(def, max), items, "every item once, in order");
});

test("a JSON larger than its text: the JSON is what gets cut", () => {
  const def = pagedTool((xs) => `${xs.length} things`);
  const whole = answerFrom(0);
  const max = 2000;
  assert.ok(JSON.stringify(whole).length > max && renderAnswer(def, whole).length < max);
  const fitted = fitBudget(def, whole, max);
  assert.equal(fitted.truncated, true);
  assert.ok(JSON.stringify(fitted).length <= max);
  // As many whole items as the JSON holds: one more would not fit.
  const oneMore = { ...fitted, items: items.slice(0, (fitted.shown as number) + 1) };
  assert.ok(JSON.stringify(oneMore).length > max - 20);
  assert.deepEqual(walk(def, max), items);
});

test("an answer whose both forms fit is returned as it is, without envelope fields", () => {
  const def = pagedTool((xs) => xs.join("\n"));
  const small = { items: items.slice(0, 5), total: 5 };
  assert.equal(fitBudget(def, small, 20_000), small);
});

const site = (file: string, line: number, extra: Partial<Reference> = {}): Reference => ({
  relative_path: file,
  line,
  column: 5,
  containing_symbol: { name_path: "Cart/total", kind: "Method" },
  snippet: "return this.items.reduce((a, b) => a + b, 0);",
  ...extra,
});

const importSite = (file: string, line: number): Reference => {
  const { snippet: _s, ...rest } = site(file, line, { containing_symbol: null, import: true });
  return rest;
};

test("references: a file's path once, its import lines, then one line per line of sites", () => {
  const files = groupReferences([
    importSite("src/a.ts", 1),
    site("src/a.ts", 27),
    site("src/a.ts", 28),
    site("src/a.ts", 50, {
      containing_symbol: { name_path: "main", kind: "Function" },
      snippet: "total();",
    }),
    site("src/a.ts", 52),
    site("src/a.ts", 52, { column: 30 }),
    site("src/a.ts", 60, { containing_symbol: null, snippet: "59: const t =\n60:   total();" }),
    importSite("src/b.ts", 2),
    importSite("src/b.ts", 3),
  ]);
  // The JSON: each file once, its import lines, each line of sites its line (columns only where a
  // line holds two, or with context lines), container and code; context lines indented under it.
  const code = "return this.items.reduce((a, b) => a + b, 0);";
  assert.deepEqual(files, [
    [
      "src/a.ts  imports: 1",
      `27  Cart/total  ${code}`,
      `28  Cart/total  ${code}`,
      "50  main  total();",
      `52:5,30  Cart/total  ${code}`,
      "60:5  (top level)",
      "    59: const t =",
      "    60:   total();",
    ].join("\n"),
    "src/b.ts  imports: 2, 3",
  ]);
  assert.deepEqual(
    files.flatMap(sitesOfFile).map((x) => [x.line, x.column, x.container, x.import]),
    [
      [1, undefined, null, true],
      [27, undefined, "Cart/total", undefined],
      [28, undefined, "Cart/total", undefined],
      [50, undefined, "main", undefined],
      [52, 5, "Cart/total", undefined],
      [52, 30, "Cart/total", undefined],
      [60, 5, null, undefined],
      [2, undefined, null, true],
      [3, undefined, null, true],
    ],
  );
  assert.equal(sitesOfFile(files[0]!).at(-1)?.code, "59: const t =\n60:   total();");
  assert.equal(withOwnLines(files[0]!).split("\n").at(-1), "60:5  (top level)  total();");
  assert.equal(referenceUnits.count(files), 9);
  // A page may end inside a file: imports first, then the sites in order.
  assert.deepEqual(referenceUnits.take(files, 3), [
    ["src/a.ts  imports: 1", `27  Cart/total  ${code}`, `28  Cart/total  ${code}`].join("\n"),
  ]);
  assert.deepEqual(referenceUnits.take(files, 8), [files[0], "src/b.ts  imports: 2"]);
  for (let n = 0; n <= 9; n++) assert.equal(referenceUnits.count(referenceUnits.take(files, n)), n);
  // A page may end inside a line of sites: its first columns.
  assert.equal(String(referenceUnits.take(files, 5)[0]).split("\n").at(-1), `52:5  Cart/total  ${code}`);
  const answer = {
    symbol: "Cart/total [Method] src/cart.ts:27-30",
    files,
    total: 9,
    complete: true,
  };
  const text = findReferencingSymbolsTool.render(answer as never);
  assert.equal(
    text,
    [
      "9 references to Cart/total [Method] src/cart.ts:27-30",
      "src/a.ts  imports: 1",
      `  27  Cart/total  ${code}`,
      `  28  Cart/total  ${code}`,
      "  50  main  total();",
      `  52:5,30  Cart/total  ${code}`,
      "  60:5  (top level)",
      "      59: const t =",
      "      60:   total();",
      "src/b.ts  imports: 2, 3",
    ].join("\n"),
  );
});

test("import sites: import/export-from statements, single- and multi-line; not ordinary uses", () => {
  const src = [
    'import { total } from "./cart";', // 0
    "import {", // 1
    "  alpha,", // 2
    "  total as sum,", // 3
    '} from "./cart";', // 4
    'export { total } from "./cart";', // 5
    "export { total };", // 6
    "const o = {", // 7
    "  total,", // 8
    "};", // 9
    "  return total(cart);", // 10
    "use crate::cart::total;", // 11
    "from cart import total", // 12
    'import type { Total } from "./cart";', // 13
    "import {", // 14
    '  beta, total } from "./cart";', // 15
  ];
  // The lines that name the symbol; a site on any of them is one of its references.
  const named = src.map((_, i) => i).filter((i) => /total|Total/.test(src[i]!));
  assert.deepEqual(
    named.filter((i) => isImportSite(src, i)),
    [0, 3, 5, 11, 12, 13, 15],
  );
  assert.ok(isImportSite(src, 2), "a name inside a multi-line import list");
  assert.ok(!isImportSite(src, 6), "export { x } without from is a use");
  assert.ok(!isImportSite(src, 8), "an object literal's shorthand is a use");
  assert.ok(!isImportSite(src, 10));
});

test("a long site line is cut to maxSiteLine (80) characters that still show the site", () => {
  const short = "    return total(cart);";
  assert.equal(siteLine(short, 11), "return total(cart);");
  const long = `  const x = ${"a + ".repeat(40)}total(cart) + ${"b + ".repeat(20)}c;`;
  const at = long.indexOf("total(");
  const cut = siteLine(long, at);
  assert.equal(maxSiteLine, 80);
  assert.ok(cut.length <= maxSiteLine, `${cut.length}`);
  assert.ok(cut.includes("total(cart)"), cut);
  assert.ok(cut.startsWith("…") && cut.endsWith("…"), cut);
  const early = siteLine(`${long}`, 2);
  assert.ok(early.startsWith("const x =") && early.endsWith("…") && early.length === maxSiteLine, early);
});

test("references: sites of one line share it only within one container", () => {
  const [file] = groupReferences([
    site("src/c.ts", 5, { containing_symbol: { name_path: "a", kind: "Variable" } }),
    site("src/c.ts", 5, { column: 20, containing_symbol: { name_path: "b", kind: "Variable" } }),
  ]);
  const code = "return this.items.reduce((a, b) => a + b, 0);";
  assert.equal(file, ["src/c.ts", `5:5  a  ${code}`, `5:20  b  ${code}`].join("\n"));
  assert.deepEqual(
    sitesOfFile(file!).map((x) => [x.line, x.column, x.container]),
    [
      [5, 5, "a"],
      [5, 20, "b"],
    ],
  );
});
