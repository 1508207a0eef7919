// Word splitting, stemming and BM25F ranking of search_symbols (src/symbols/rank.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import { commentText, rank, splitWords, stem, terms } from "../../src/symbols/rank.js";

test("identifiers split at camelCase, PascalCase acronyms, snake_case, kebab-case and digits", () => {
  assert.deepEqual(splitWords("renderPriceLabel"), ["render", "price", "label"]);
  assert.deepEqual(splitWords("HTTPServer_parse-config2"), ["http", "server", "parse", "config", "2"]);
  assert.deepEqual(splitWords("MAX_RETRY_COUNT"), ["max", "retry", "count"]);
});

test("stems meet plural, -ing and -ed forms; stop words go", () => {
  for (const [a, b] of [
    ["displays", "display"],
    ["parsing", "parse"],
    ["parsed", "parse"],
    ["prices", "price"],
    ["formatting", "format"],
    ["entries", "entry"],
  ])
    assert.equal(stem(a!), stem(b!), `${a} / ${b}`);
  assert.deepEqual(terms("Returns the price of an item"), ["price", "item"].map(stem));
});

test("doc comments lose their markers and tag names", () => {
  const text = commentText("/**\n * Formats a price.\n * @param cents amount\n */\nexport function ");
  assert.deepEqual(terms(text), terms("Formats a price cents amount"));
  assert.equal(
    terms(commentText("#[derive(Debug)]\n/// Parses it\npub fn ")).join(" "),
    terms("Parses it").join(" "),
  );
});

test("a symbol about every query word outranks one that repeats a single word in its name", () => {
  const docs = [
    {
      item: "displayName",
      fields: { name: "displayName", path: "User", kind: "Method", doc: "The display name" },
    },
    { item: "displayMode", fields: { name: "displayMode", kind: "Method" } },
    {
      item: "formatAmount",
      fields: { name: "formatAmount", kind: "Function", doc: "Formats a price for display" },
    },
    { item: "roundPrice", fields: { name: "roundPrice", kind: "Function", doc: "Rounds a price" } },
    { item: "unrelated", fields: { name: "parseTags", kind: "Function", doc: "Splits tags" } },
  ];
  const ranked = rank("price display", docs).map((r) => r.item);
  assert.equal(ranked[0], "formatAmount");
  assert.ok(ranked.indexOf("formatAmount") < ranked.indexOf("displayName"));
  assert.ok(!ranked.includes("unrelated"), "a symbol with no query word is no hit");
  assert.deepEqual(rank("the of", docs), [], "a query of stop words finds nothing");
});

test("a query word also meets longer words it begins, below an exact word", () => {
  const docs = [
    { item: "loadConfiguration", fields: { name: "loadConfiguration" } },
    { item: "parseConfig", fields: { name: "parseConfig" } },
    { item: "other", fields: { name: "other" } },
  ];
  assert.deepEqual(
    rank("config", docs).map((r) => r.item),
    ["parseConfig", "loadConfiguration"],
  );
});
