// @backends tsserver native:full
// @via daemon
/**
 * replace_symbol_body / insert_before_symbol / insert_after_symbol on ts-basic over the built CLI:
 * unindented bodies land at the target's indentation, LF/CRLF and the BOM are preserved, dry runs
 * write nothing, and find_symbol / find_referencing_symbols see the new code at once.
 */
import { strict as assert } from "node:assert";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { lineOf } from "../helpers/anchors.js";
import { assertCompiles, hashTree, readBytes, readText, type TempProject } from "../helpers/fixtures.js";
import {
  callOk,
  type EditResult,
  editedFiles,
  type FindSymbolResult,
  type ReferencesResult,
  type ScalpelHandle,
  type Sym,
  serveFixture,
  sitesOf,
  stopServing,
} from "../helpers/mcp.js";

/** Asserts `lines` appear as consecutive lines of `text` (line terminators ignored); returns the first line (1-based). */
function assertBlock(text: string, lines: string[]): number {
  const all = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  for (let i = 0; i + lines.length <= all.length; i++) {
    if (lines.every((l, k) => all[i + k] === l)) return i + 1;
  }
  assert.fail(`block not found:\n${lines.join("\n")}\n--- in ---\n${text}`);
}

function assertOnlyCrlf(text: string): void {
  assert.ok(!/(?<!\r)\n/.test(text), `a bare LF crept in:\n${JSON.stringify(text)}`);
  assert.ok(!text.includes("\r\r"), "no doubled CR");
}

function assertOnlyLf(text: string): void {
  assert.ok(!text.includes("\r"), `a CR crept in:\n${JSON.stringify(text)}`);
}

function assertSingleBom(bytes: Buffer): void {
  assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf], "BOM kept");
  assert.notDeepEqual([...bytes.subarray(3, 6)], [0xef, 0xbb, 0xbf], "BOM not doubled");
  assert.equal(bytes.indexOf(Buffer.from([0xef, 0xbb, 0xbf]), 3), -1, "no BOM in the middle of the file");
}

describe("symbol edits (e2e, typescript-language-server)", () => {
  let fx: TempProject;
  let h: ScalpelHandle;

  before(async () => {
    ({ fx, h } = await serveFixture("ts-basic"));
  });

  after(() => stopServing(h, fx));

  const one = async (name_path_pattern: string, relative_path: string): Promise<Sym> => {
    const r = await callOk<FindSymbolResult>(h, "find_symbol", {
      name_path_pattern,
      relative_path,
      include_body: true,
    });
    assert.equal(r.symbols.length, 1, `${name_path_pattern}: ${JSON.stringify(r.symbols)}`);
    return r.symbols[0]!;
  };

  it("dry run of replace_symbol_body writes nothing and returns the diff", async () => {
    const before1 = await hashTree(fx.dir);
    const r = await callOk<EditResult>(h, "replace_symbol_body", {
      name_path: "Money/double",
      relative_path: "src/money.ts",
      body: "double(): Money {\n  return this.add(this);\n}",
      dry_run: true,
    });
    assert.equal(r.applied, false);
    assert.deepEqual(await hashTree(fx.dir), before1);
    assert.match(r.diff ?? "", /^\+\s+return this\.add\(this\);$/m);
    assert.match(r.diff ?? "", /^-\s+return this\.multiplyByRate\(2\);$/m);
    assert.deepEqual(
      editedFiles(r).map((f) => f.relative_path),
      ["src/money.ts"],
    );
  });

  it("replace_symbol_body re-indents an unindented body to a class member's indentation (LF file)", async () => {
    const r = await callOk<EditResult>(h, "replace_symbol_body", {
      name_path: "Money/add",
      relative_path: "src/money.ts",
      body: "add(other: Money): Money {\n  const sum = this.amount + other.amount;\n  return new Money(sum, this.currency);\n}",
    });
    assert.equal(r.applied, true);
    assert.equal(typeof r.edit_id, "string");
    const text = await readText(fx.dir, "src/money.ts");
    assertOnlyLf(text);
    const start = assertBlock(text, [
      "  add(other: Money): Money {",
      "    const sum = this.amount + other.amount;",
      "    return new Money(sum, this.currency);",
      "  }",
    ]);
    assert.ok(!text.includes("this.amount + other.amount, this.currency"), "old body gone");
    const s = await one("Money/add", "src/money.ts");
    assert.equal(s.start_line, start);
    assert.equal(s.end_line, start + 3);
    assert.ok(s.body?.includes("const sum = this.amount + other.amount;"), s.body);
    assertCompiles(fx.dir);
  });

  it("insert_after_symbol adds a member at the class's indentation; references see it at once", async () => {
    const r = await callOk<EditResult>(h, "insert_after_symbol", {
      name_path: "Money/add",
      relative_path: "src/money.ts",
      body: "triple(): Money {\n  return this.multiplyByRate(3);\n}",
    });
    assert.equal(r.applied, true);
    const text = await readText(fx.dir, "src/money.ts");
    assertOnlyLf(text);
    const start = assertBlock(text, ["  triple(): Money {", "    return this.multiplyByRate(3);", "  }"]);
    assert.ok(start > lineOf(text, "  add(other: Money): Money {"), "after the target");
    assert.ok(start < lineOf(text, "export function makeMoney"), "still inside the class");
    const s = await one("Money/triple", "src/money.ts");
    assert.equal(s.start_line, start);
    const refs = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
      name_path: "Money/multiplyByRate",
      relative_path: "src/money.ts",
    });
    assert.equal(refs.complete, true);
    const mine = sitesOf(refs).filter((x) => x.container === "Money/triple");
    assert.deepEqual(
      mine.map((x) => x.line),
      [start + 1],
    );
    assertCompiles(fx.dir);
  });

  it("insert_before_symbol adds a member before an indented target", async () => {
    const r = await callOk<EditResult>(h, "insert_before_symbol", {
      name_path: "Money/double",
      relative_path: "src/money.ts",
      body: "half(): Money {\n  return this.multiplyByRate(0.5);\n}",
    });
    assert.equal(r.applied, true);
    const text = await readText(fx.dir, "src/money.ts");
    const start = assertBlock(text, ["  half(): Money {", "    return this.multiplyByRate(0.5);", "  }"]);
    assert.ok(start < lineOf(text, "  double(): Money {"));
    assert.ok(start > lineOf(text, "export class Money"));
    const s = await one("Money/half", "src/money.ts");
    assert.equal(s.start_line, start);
    assertCompiles(fx.dir);
  });

  it("insert_before_symbol / insert_after_symbol at top level", async () => {
    await callOk<EditResult>(h, "insert_before_symbol", {
      name_path: "makeMoney",
      relative_path: "src/money.ts",
      body: "export const ZERO_RATE = 0;",
    });
    await callOk<EditResult>(h, "insert_after_symbol", {
      name_path: "makeMonies",
      relative_path: "src/money.ts",
      body: "export function zero(): Money {\n  return makeMoney(0);\n}",
    });
    const text = await readText(fx.dir, "src/money.ts");
    const zr = assertBlock(text, ["export const ZERO_RATE = 0;"]);
    assert.ok(zr < lineOf(text, "export function makeMoney"));
    const z = assertBlock(text, ["export function zero(): Money {", "  return makeMoney(0);", "}"]);
    assert.ok(z > lineOf(text, "export function makeMonies"));
    assert.equal((await one("ZERO_RATE", "src/money.ts")).start_line, zr);
    assert.equal((await one("zero", "src/money.ts")).start_line, z);
    assertCompiles(fx.dir);
  });

  it("CRLF file: replace and insert keep CRLF and the file's 4-space indentation", async () => {
    await callOk<EditResult>(h, "replace_symbol_body", {
      name_path: "CrlfBox/size",
      relative_path: "src/crlf.ts",
      body: "size(): number {\n    const n = this.label.length;\n    return n * 2;\n}",
    });
    await callOk<EditResult>(h, "insert_after_symbol", {
      name_path: "CrlfBox/describe",
      relative_path: "src/crlf.ts",
      body: "shout(): string {\n    return this.describe().toUpperCase();\n}",
    });
    await callOk<EditResult>(h, "insert_before_symbol", {
      name_path: "crlfGreeting",
      relative_path: "src/crlf.ts",
      body: "export const CRLF_MARK = 1;",
    });
    const text = await readText(fx.dir, "src/crlf.ts");
    assertOnlyCrlf(text);
    const size = assertBlock(text, [
      "    size(): number {",
      "        const n = this.label.length;",
      "        return n * 2;",
      "    }",
    ]);
    const shout = assertBlock(text, [
      "    shout(): string {",
      "        return this.describe().toUpperCase();",
      "    }",
    ]);
    const mark = assertBlock(text, ["export const CRLF_MARK = 1;"]);
    assert.ok(mark < lineOf(text, "export function crlfGreeting"));
    assert.equal((await one("CrlfBox/size", "src/crlf.ts")).start_line, size);
    const s = await one("CrlfBox/shout", "src/crlf.ts");
    assert.equal(s.start_line, shout);
    assert.ok(s.body?.includes("toUpperCase"), s.body);
    assertCompiles(fx.dir);
  });

  it("BOM file: edits keep exactly one BOM and the non-ASCII text", async () => {
    await callOk<EditResult>(h, "replace_symbol_body", {
      name_path: "größe",
      relative_path: "src/unicode.ts",
      body: "export function größe(wert: number): number {\n  const faktor = 3; // ü\n  return wert * faktor;\n}",
    });
    await callOk<EditResult>(h, "insert_after_symbol", {
      name_path: "Straße/länge",
      relative_path: "src/unicode.ts",
      body: "breite(): number {\n  return größe(1);\n}",
    });
    await callOk<EditResult>(h, "insert_before_symbol", {
      name_path: "café",
      relative_path: "src/unicode.ts",
      body: 'export const thé = "🍵";',
    });
    const bytes = await readBytes(fx.dir, "src/unicode.ts");
    assertSingleBom(bytes);
    const text = bytes.toString("utf8");
    assertOnlyLf(text);
    assert.ok(text.startsWith('\uFEFFexport const thé = "🍵";\n'), JSON.stringify(text.slice(0, 60)));
    assert.ok(text.includes('export const emoji = "😀 multibyte";'), "text after the emoji is intact");
    const g = assertBlock(text, [
      "export function größe(wert: number): number {",
      "  const faktor = 3; // ü",
      "  return wert * faktor;",
      "}",
    ]);
    const b = assertBlock(text, ["  breite(): number {", "    return größe(1);", "  }"]);
    assert.equal((await one("größe", "src/unicode.ts")).start_line, g);
    assert.equal((await one("Straße/breite", "src/unicode.ts")).start_line, b);
    assert.equal((await one("thé", "src/unicode.ts")).start_line, 1);
    assertCompiles(fx.dir);
  });

  it("an edit to a file changed on disk by someone else re-reads it first", async () => {
    const old = await readText(fx.dir, "src/shapes.ts");
    // shifts every symbol of the file down by two lines behind the language server's back
    await writeFile(join(fx.dir, "src/shapes.ts"), `// added elsewhere\n// by another process\n${old}`);
    await callOk<EditResult>(h, "replace_symbol_body", {
      name_path: "Square/area",
      relative_path: "src/shapes.ts",
      body: "area(): number {\n  return this.side ** 2;\n}",
    });
    const text = await readText(fx.dir, "src/shapes.ts");
    assert.ok(
      text.startsWith("// added elsewhere\n// by another process\nexport interface Shape {"),
      "outside change kept",
    );
    assertBlock(text, ["  area(): number {", "    return this.side ** 2;", "  }"]);
    assert.ok(text.includes("return Math.PI * this.radius ** 2;"), "Circle/area untouched");
    assertCompiles(fx.dir);
  });

  // Last, because a broken result would make the type checks of later tests fail too.
  it("replace_symbol_body on an exported const replaces the whole declaration", async () => {
    await callOk<EditResult>(h, "replace_symbol_body", {
      name_path: "ZERO_RATE",
      relative_path: "src/money.ts",
      body: "export const ZERO_RATE = 0.0;",
    });
    const text = await readText(fx.dir, "src/money.ts");
    assert.equal(
      text
        .split("\n")
        .filter((l) => l.includes("ZERO_RATE"))
        .join("\n"),
      "export const ZERO_RATE = 0.0;",
    );
    assertCompiles(fx.dir);
  });

  it("no result contained the host path of the project", () => {
    assert.deepEqual(h.hostPathLeaks, []);
  });
});
