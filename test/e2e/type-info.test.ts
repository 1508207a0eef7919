// @backends tsserver native
/**
 * get_type_info against the raw servers' hovers (typescript-language-server, rust-analyzer): the
 * code the server puts in its markdown fences comes back verbatim, without fences or markup, with
 * the documentation; by name path and by line and column; signature help inside an argument list.
 */
import { strict as assert } from "node:assert";
import { after, before, describe, it } from "node:test";
import type { Hover, MarkupContent } from "vscode-languageserver-protocol";
import { rustAnalyzerAdapter } from "../../language-servers/rust-analyzer.js";
import { typescriptAdapter } from "../../language-servers/typescript.js";
import type { LanguageAdapter } from "../../src/languages/adapter.js";
import { position } from "../helpers/anchors.js";
import { copyFixture, readText, type TempProject } from "../helpers/fixtures.js";
import { callOk, type ScalpelHandle, startScalpel } from "../helpers/mcp.js";
import { rawServer } from "../helpers/raw-server.js";
import { otherLanguageOnNativePass, rustAnalyzerMissing } from "../helpers/servers.js";

interface TypeInfo {
  relative_path: string;
  line: number;
  column: number;
  symbol: string | null;
  type_info: string;
  signature?: string;
  complete: boolean;
}

/** The lines inside the raw hover's code fences, at an anchored position. */
async function rawHoverCode(
  adapter: LanguageAdapter,
  dir: string,
  rel: string,
  anchor: string,
): Promise<string[]> {
  const raw = await rawServer(adapter, dir);
  try {
    const params = await raw.at(rel, position(await readText(dir, rel), anchor));
    const hover = await raw.session.request<Hover | null>("textDocument/hover", params);
    const md = (hover?.contents as MarkupContent | undefined)?.value ?? "";
    const code: string[] = [];
    let inFence = false;
    for (const line of md.split("\n")) {
      if (line.startsWith("```")) inFence = !inFence;
      else if (inFence && line.trim() !== "") code.push(line);
    }
    return code;
  } finally {
    await raw.close();
  }
}

describe("get_type_info (e2e, typescript)", () => {
  let fx: TempProject;
  let h: ScalpelHandle;

  before(async () => {
    fx = await copyFixture("ts-basic");
    h = await startScalpel({ project: fx.dir });
  });
  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  it("by name path: the raw hover's code without fences, and the documentation", async () => {
    const code = await rawHoverCode(typescriptAdapter, fx.dir, "src/money.ts", "multiplyByRate(rate");
    assert.deepEqual(code, ["(method) Money.multiplyByRate(rate: number): Money"]);
    const r = await callOk<TypeInfo>(h, "get_type_info", {
      name_path: "Money/multiplyByRate",
      relative_path: "src/money.ts",
    });
    assert.equal(r.type_info, code.join("\n"));
    assert.equal(r.symbol, "Money/multiplyByRate");
    const money = await readText(fx.dir, "src/money.ts");
    assert.deepEqual({ line: r.line, column: r.column }, position(money, "multiplyByRate(rate"));
    const cls = await callOk<TypeInfo>(h, "get_type_info", {
      name_path: "Money",
      relative_path: "src/money.ts",
    });
    assert.equal(cls.type_info, "class Money\n\nAn amount of money in one currency.");
  });

  it("by line and column: an inferred type, and the signature inside an argument list", async () => {
    const main = await readText(fx.dir, "src/main.ts");
    const at = position(main, "chained =");
    const v = await callOk<TypeInfo>(h, "get_type_info", { relative_path: "src/main.ts", ...at });
    assert.equal(v.type_info, "const chained: Money");
    assert.equal(v.symbol, "main/chained");
    // Inside parse("42"): the overload the call picks, which a hover on the literal does not show.
    const arg = position(main, '"42"');
    const s = await callOk<TypeInfo>(h, "get_type_info", { relative_path: "src/main.ts", ...arg });
    assert.match(s.signature ?? "", /^parse\(x: string\): number/);
    const text = (await h.call("get_type_info", { relative_path: "src/main.ts", ...at })).text;
    assert.doesNotMatch(text, /```|\*\*/);
  });

  it("refuses a position past the end and a name path with a position", async () => {
    const past = await h.call("get_type_info", { relative_path: "src/money.ts", line: 500, column: 1 });
    assert.match(past.text, /^Error \(invalid_argument\): line 500 is past the end of src\/money\.ts/);
    const both = await h.call("get_type_info", {
      relative_path: "src/money.ts",
      name_path: "Money",
      line: 1,
      column: 1,
    });
    assert.match(both.text, /^Error \(invalid_argument\): Give either name_path, or line and column/);
  });
});

const skipRust = rustAnalyzerMissing() ?? otherLanguageOnNativePass();
describe("get_type_info (e2e, rust-analyzer)", { skip: skipRust ?? false }, () => {
  let fx: TempProject;
  let h: ScalpelHandle;

  before(async () => {
    fx = await copyFixture("rust-basic");
    h = await startScalpel({ project: fx.dir });
  });
  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  it("by name path and by position: the raw hover's code and the doc comment, as plain text", async () => {
    const code = await rawHoverCode(rustAnalyzerAdapter, fx.dir, "src/money.rs", "multiply_by_rate(&self");
    assert.ok(code.includes("pub fn multiply_by_rate(&self, rate: f64) -> Money"), code.join("\n"));
    const r = await callOk<TypeInfo>(h, "get_type_info", {
      name_path: "multiply_by_rate",
      relative_path: "src/money.rs",
    });
    assert.equal(r.type_info, code.join("\n\n"));
    const money = await callOk<TypeInfo>(h, "get_type_info", {
      name_path: "Money",
      relative_path: "src/money.rs",
    });
    assert.match(money.type_info, /pub struct Money \{/);
    assert.match(money.type_info, /An amount of money in cents\./);
    assert.doesNotMatch(money.type_info, /```|^---$/m);
    const main = await readText(fx.dir, "src/main.rs");
    const v = await callOk<TypeInfo>(h, "get_type_info", {
      relative_path: "src/main.rs",
      ...position(main, "doubled ="),
    });
    assert.match(v.type_info, /^let doubled: Money/);
    // rust-analyzer lists no local variables as symbols: the holding function is named.
    assert.equal(v.symbol, "main");
  });
});
