import { strict as assert } from "node:assert";
import { test } from "node:test";
import { hoverText, plainMarkdown } from "../../src/navigation/hover-text.js";

test("a rust-analyzer hover: fenced code verbatim, rules and markup gone, prose kept", () => {
  // Shape measured from rust-analyzer on a documented method (module path, signature, doc).
  const md =
    "\n```rust\nshop::money::Money\n```\n\n```rust\npub fn add(&self, other: &Money) -> Money\n```\n\n---\n\nAdds **two** amounts; see [`Money::new`](https://docs.rs/x) and `cents`.\n\n# Panics\n\nNever \\_ever\\_.";
  assert.equal(
    plainMarkdown(md),
    "shop::money::Money\n\npub fn add(&self, other: &Money) -> Money\n\nAdds two amounts; see Money::new and cents.\n\nPanics\n\nNever _ever_.",
  );
});

test("code inside a fence is never touched, even when it looks like markup", () => {
  const md = "```ts\nconst a = b * c * d; // `x` **y**\n# not a heading\n```\nText *emphasis*.";
  assert.equal(plainMarkdown(md), "const a = b * c * d; // `x` **y**\n# not a heading\n\nText emphasis.");
});

test("hover contents in each LSP form: MarkupContent, MarkedString, arrays, plaintext", () => {
  assert.equal(hoverText(null), "");
  assert.equal(hoverText({ contents: { kind: "plaintext", value: "  a *b*  " } }), "a *b*");
  assert.equal(hoverText({ contents: { language: "python", value: "def f() -> int" } }), "def f() -> int");
  assert.equal(
    hoverText({ contents: ["**Bold** title", { language: "c", value: "int x;" }] }),
    "Bold title\n\nint x;",
  );
});

test("a gopls hover: indented doc code verbatim, doc links without their file targets", () => {
  // Shape measured from gopls v0.23.0 (linksInHover off) on a documented method whose doc comment
  // has a doc link and an indented example; the example holds what reads like markup.
  const md =
    "```go\nfunc (o *Order) Total() int\n```\n\n---\n\nTotal sums the prices of [Priced](file:///home/u/shop/store.go#13,6) lines:\n\n\tdue := order.Total() * rate_a_b_\n\t`raw`\n\nSee \\*notes\\*.\n";
  assert.equal(
    plainMarkdown(md),
    "func (o *Order) Total() int\n\nTotal sums the prices of Priced lines:\n\n\tdue := order.Total() * rate_a_b_\n\t`raw`\n\nSee *notes*.",
  );
  // Indented text that continues a paragraph is prose, not code.
  assert.equal(plainMarkdown("A list:\n    *still* prose"), "A list:\n    still prose");
});
