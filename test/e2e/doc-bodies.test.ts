// @backends tsserver native:full
/**
 * A body is the code (#19): find_symbol with include_body says a long doc comment in one line
 * (`docs`, `docs_lines`) so the code fits the default budget; include_docs keeps it whole; the body
 * it shows round-trips through replace_symbol_body without losing the docs (also with a decorator).
 */
import { strict as assert } from "node:assert";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { makeTempProject, readText, runTsc, type TempProject, writeTsconfig } from "../helpers/fixtures.js";
import { callOk, type FindSymbolResult, type ScalpelHandle, startScalpel } from "../helpers/mcp.js";

const docLines = 200;
const codeLines = 150;

function parseSource(): string {
  const doc = ["/**", " * Parses a date string into a Date. It accepts many formats.", " *"];
  for (let i = 0; i < docLines - 4; i++)
    doc.push(
      ` * Format token ${i}: what it matches, how it is read, and which locale options change its meaning.`,
    );
  doc.push(" */");
  const body = ["export function parse(input: string): number {", "  let total = 0;"];
  for (let i = 0; i < codeLines - 4; i++) body.push(`  total += input.charCodeAt(${i % 7}) * ${i};`);
  body.push("  return total;", "}");
  const decorated = [
    "function logged(_t: unknown, _k: string, d: PropertyDescriptor): PropertyDescriptor {",
    "  return d;",
    "}",
    "",
    "export class Parser {",
    "  /**",
    ...Array.from({ length: 14 }, (_, i) => `   * Line ${i} of the method's documentation.`),
    "   */",
    "  @logged",
    "  run(x: number): number {",
    "    return x + 1;",
    "  }",
    "}",
  ];
  return [...doc, ...body, "", ...decorated, ""].join("\n");
}

describe("long doc comments in bodies (e2e)", () => {
  let fx: TempProject;
  let h: ScalpelHandle;
  const source = parseSource();

  before(async () => {
    fx = await makeTempProject();
    await writeTsconfig(fx.dir);
    const tsconfig = JSON.parse(await readText(fx.dir, "tsconfig.json")) as {
      compilerOptions: Record<string, unknown>;
    };
    tsconfig.compilerOptions.experimentalDecorators = true;
    await writeFile(join(fx.dir, "tsconfig.json"), JSON.stringify(tsconfig, null, 2));
    await mkdir(join(fx.dir, "src"), { recursive: true });
    await writeFile(join(fx.dir, "src/parse.ts"), source);
    h = await startScalpel({ project: fx.dir });
  });
  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  it("include_body gives the whole code within the default budget and the docs as one line", async () => {
    const r = await callOk<FindSymbolResult>(h, "find_symbol", {
      name_path_pattern: "parse",
      relative_path: "src/parse.ts",
      include_body: true,
    });
    assert.equal(r.symbols.length, 1);
    const s = r.symbols[0]!;
    assert.equal(r.truncated, undefined, "the default answer is not shortened");
    assert.equal(s.docs, "Parses a date string into a Date.");
    assert.equal(s.docs_lines, docLines);
    assert.ok(s.body?.startsWith("export function parse(input: string): number {"), s.body?.slice(0, 80));
    assert.equal(s.body?.split("\n").length, codeLines);
    assert.ok(!s.body?.includes("Format token"), "no doc line in the body");
  });

  it("include_docs gives the doc comment whole", async () => {
    const r = await callOk<FindSymbolResult>(h, "find_symbol", {
      name_path_pattern: "parse",
      relative_path: "src/parse.ts",
      include_body: true,
      include_docs: true,
      max_answer_chars: 100_000,
    });
    const s = r.symbols[0]!;
    assert.equal(s.docs, undefined);
    assert.equal(s.body?.split("\n").length, docLines + codeLines);
    assert.ok(s.body?.startsWith("/**\n * Parses a date string"));
  });

  it("include_docs over the budget drops the docs before the code", async () => {
    const r = await callOk<FindSymbolResult>(h, "find_symbol", {
      name_path_pattern: "parse",
      relative_path: "src/parse.ts",
      include_body: true,
      include_docs: true,
    });
    const s = r.symbols[0]!;
    assert.equal(s.docs, "Parses a date string into a Date.");
    assert.equal(s.body?.split("\n").length, codeLines);
    assert.match(r.hint ?? "", /first sentence/);
  });

  it("the bodies shown round-trip through replace_symbol_body, docs and decorators kept", async () => {
    for (const namePath of ["parse", "Parser/run"]) {
      const r = await callOk<FindSymbolResult>(h, "find_symbol", {
        name_path_pattern: namePath,
        relative_path: "src/parse.ts",
        include_body: true,
      });
      const s = r.symbols[0]!;
      assert.ok(s.docs, `${namePath} has its docs summarised`);
      await callOk(h, "replace_symbol_body", {
        name_path: namePath,
        relative_path: "src/parse.ts",
        body: s.body,
      });
      assert.equal(await readText(fx.dir, "src/parse.ts"), source, `${namePath}: file unchanged`);
    }
    const tsc = runTsc(fx.dir);
    assert.equal(tsc.status, 0, tsc.output);
  });
});
