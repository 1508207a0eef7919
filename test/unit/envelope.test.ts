// The wrapper owns the result envelope: every tool's output schema (as a client gets it from
// tools/list) declares truncated/hint, and every answer the budget shrinks — by the tool's own steps
// or by the generic cut — stays valid for that schema, checked with the SDK client's own validator.
// Big answers are generated from each tool's zod shape, so a new tool is covered without a new case.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { z } from "zod";
import { log } from "../../src/core/log.js";
import { groupReferences, type ReferenceFile, sitesOfFile } from "../../src/references/listing.js";
import { createServer } from "../../src/server.js";
import { allTools } from "../../src/tools/index.js";
import type { ToolDef } from "../../src/tools/kit/define.js";
import { envelopeShape, outputShapeOf } from "../../src/tools/kit/envelope.js";
import { cutToFit, fitBudget, renderAnswer, sdkToolError } from "../../src/tools/kit/run.js";
import { Workspace } from "../../src/workspace/workspace.js";
import { byTier } from "../helpers/tier.js";

/**
 * A value valid for `schema` with every optional part present, `n` items per top-level array,
 * strings of `len` characters inside arrays and of `topLen` in the answer's own fields.
 */
function sample(schema: z.ZodType, n: number, len: number, depth = 0, topLen = len): unknown {
  // biome-ignore lint/suspicious/noExplicitAny: zod's internal definition differs per schema type
  const def = (schema as any)._zod.def;
  switch (def.type) {
    case "string": {
      const line = "const value = compute(input); // sample text ".repeat(3).slice(0, 60);
      let s = "";
      while (s.length < topLen) s += `${line}\n`;
      return s.slice(0, topLen);
    }
    case "number":
    case "int":
      return 3;
    case "boolean":
      return true;
    case "literal":
      return def.values[0];
    case "enum":
      return Object.values(def.entries)[0];
    case "optional":
      // Recursive shapes (a symbol's children) stop after a few levels.
      return depth > 3 ? undefined : sample(def.innerType, n, len, depth, topLen);
    case "nullable":
    case "default":
    case "prefault":
    case "nonoptional":
    case "readonly":
      return sample(def.innerType, n, len, depth, topLen);
    case "array":
      return Array.from({ length: n }, () => sample(def.element, n > 3 ? 3 : 1, len, depth));
    case "object":
      return Object.fromEntries(
        Object.entries(def.shape as Record<string, z.ZodType>)
          .map(([k, v]) => [k, sample(v, n, len, depth, topLen)])
          .filter(([, v]) => v !== undefined),
      );
    case "record":
      return Object.fromEntries(
        Array.from({ length: n }, (_, i) => [`key${i}`, sample(def.valueType, n > 3 ? 3 : 1, len, depth)]),
      );
    case "union":
      return sample(def.options[0], n, len, depth, topLen);
    case "lazy":
      return sample(def.getter(), n, len, depth + 1, topLen);
    default:
      throw new Error(`sample(): no generator for zod type '${def.type}'; add one`);
  }
}

const validator = new AjvJsonSchemaValidator();
const schemas = new Map<string, Record<string, unknown>>();
let client: Client;

before(async () => {
  // The schemas exactly as a host sees them: the real server's tools/list over an in-memory pipe.
  const workspace = new Workspace({ readOnly: false, cwd: process.cwd() }, log);
  const server = createServer({ workspace, log });
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  client = new Client({ name: "envelope-test", version: "0" });
  await client.connect(b);
  const { tools } = await client.listTools();
  for (const t of tools) schemas.set(t.name, t.outputSchema as Record<string, unknown>);
});

after(async () => {
  await client?.close();
});

function check(def: ToolDef, value: unknown, what: string): void {
  const schema = schemas.get(def.name);
  assert.ok(schema, `${def.name} has an outputSchema in tools/list`);
  const r = validator.getValidator(schema)(value);
  assert.ok(r.valid, `${def.name} ${what} breaks its output schema: ${r.errorMessage}`);
  const parsed = z.object(outputShapeOf(def.output)).strict().safeParse(value);
  assert.ok(parsed.success, `${def.name} ${what} fails its zod shape: ${parsed.error?.message}`);
}

test("tools/list lists every tool, each output schema declaring the envelope's fields", () => {
  assert.deepEqual([...schemas.keys()].sort(), allTools.map((t) => t.name).sort());
  for (const [name, schema] of schemas) {
    const props = (schema.properties ?? {}) as Record<string, unknown>;
    for (const key of Object.keys(envelopeShape))
      assert.ok(key in props, `${name}'s outputSchema lacks '${key}'`);
    assert.equal(schema.additionalProperties, false, `${name}: clients reject undeclared fields`);
  }
});

test("no tool declares an envelope field itself (one home), and declaring one is refused", () => {
  for (const def of allTools) {
    for (const key of Object.keys(envelopeShape))
      assert.ok(!(key in def.output), `${def.name} declares '${key}'`);
  }
  assert.throws(() => outputShapeOf({ truncated: z.boolean() }), /envelope field 'truncated'/);
});

describe("every tool's answer over the budget stays valid and says truncated", () => {
  const max = 4000;
  for (const def of allTools) {
    test(def.name, () => {
      // Arrays of 120 with 800-character texts (40 × 400 in the quick tier), a single text field of
      // 40 000 (a memory, a file): each far over the 4,000 budget, so the shrink steps and the
      // generic cut run as they did with 300 × 1,500, which cost the loop 15 s of CPU).
      const big = sample(z.object(def.output), byTier(40, 120), byTier(400, 800), 0, 40_000) as Record<
        string,
        unknown
      >;
      check(def, big, "sample");
      assert.ok(JSON.stringify(big).length > max, "the sample is over the budget");
      // Each of the tool's own steps, in order, keeps the answer valid.
      let current = big;
      for (const [i, step] of (def.shrink ?? []).entries()) {
        current = step(current as never) as Record<string, unknown>;
        check(def, current, `after shrink step ${i + 1}`);
      }
      const fitted = fitBudget(def, big, max);
      check(def, fitted, "fitted to the budget");
      // Fields a tool keeps whole (what an edit changed) are exempt from the budget, nothing else.
      const kept = Object.fromEntries((def.keepWhole ?? []).map((k) => [k, fitted[k]]));
      const keptSize = def.keepWhole ? JSON.stringify(kept).length : 0;
      assert.ok(
        JSON.stringify(fitted).length <= max + keptSize,
        `${def.name}: ${JSON.stringify(fitted).length} > ${max} + ${keptSize} kept whole`,
      );
      for (const k of def.keepWhole ?? [])
        assert.deepEqual(fitted[k], big[k], `${def.name} keeps ${k} whole`);
      assert.equal(fitted.truncated, true);
      assert.equal(typeof fitted.hint, "string");
      const text = renderAnswer(def, fitted);
      assert.ok(text.includes(`(truncated) ${fitted.hint}`), `${def.name}'s text carries the hint`);
    });
  }
});

test("an answer within the budget is returned as it is and never says truncated", () => {
  for (const def of allTools) {
    const small = sample(z.object(def.output), 1, 20) as Record<string, unknown>;
    const fitted = fitBudget(def, small, 20_000);
    assert.equal(fitted, small, def.name);
    assert.ok(!("truncated" in fitted) && !("hint" in fitted), def.name);
    assert.ok(!renderAnswer(def, fitted).includes("(truncated)"), def.name);
  }
});

test("a shrink step's own hint (read_file: where to continue) is kept; otherwise the tool's narrowHint", () => {
  const def = {
    ...allTools[0]!,
    // A text smaller than the JSON: the JSON is the form the budget binds here.
    render: () => "items",
    shrink: [(r: Record<string, unknown>) => ({ ...r, items: [], hint: "continue at 7" })],
    narrowHint: "narrow it",
  } as unknown as ToolDef;
  const big = { items: Array.from({ length: 500 }, (_, i) => `item ${i}`) };
  assert.equal(fitBudget(def, big, 200).hint, "continue at 7");
  const plain = { ...def, shrink: [] } as unknown as ToolDef;
  assert.equal(fitBudget(plain, big, 400).hint, "narrow it");
});

test("the envelope's own fields fit in the budget too", () => {
  // A step that lands just under the budget leaves no room for truncated + hint: the cut goes on.
  const def = {
    ...allTools[0]!,
    render: () => "items",
    shrink: [(r: { items: string[] }) => ({ items: r.items.slice(0, 44) })],
    narrowHint: "narrow it down, please",
  } as unknown as ToolDef;
  const big = { items: Array.from({ length: 500 }, (_, i) => `item ${String(i).padStart(3, "0")}`) };
  const max = JSON.stringify({ items: big.items.slice(0, 44) }).length + 5;
  const fitted = fitBudget(def, big, max);
  assert.ok(JSON.stringify(fitted).length <= max, `${JSON.stringify(fitted).length} > ${max}`);
  assert.equal(fitted.truncated, true);
});

test("the generic cut halves the largest array or long string and leaves short strings whole", () => {
  const answer = {
    name: "Money/add",
    items: Array.from({ length: 100 }, () => "x".repeat(50)),
    text: "y".repeat(3000),
  };
  const cut = cutToFit(answer, 1500);
  assert.ok(JSON.stringify(cut).length <= 1500);
  assert.equal(cut.name, "Money/add");
  assert.equal(answer.items.length, 100, "the input is not mutated");
  assert.ok(cut.text.endsWith("…"));
});

test("errors the SDK raises before our handler become coded error results with what to do next", () => {
  const input = sdkToolError(
    "MCP error -32602: Input validation error: Invalid arguments for tool find_symbol: Invalid input: expected string, received undefined at name_path",
  );
  assert.equal(input.isError, true);
  assert.match(
    input.content[0]!.text,
    /^Error \(invalid_argument\): Invalid arguments for find_symbol: .*name_path.*Call it again/,
  );
  assert.equal(input.structuredContent, undefined);
  assert.match(
    sdkToolError("MCP error -32602: Tool nope not found").content[0]!.text,
    /^Error \(unknown_tool\)/,
  );
  assert.match(
    sdkToolError("MCP error -32602: Tool rename_symbol disabled").content[0]!.text,
    /^Error \(read_only\)/,
  );
  assert.match(
    sdkToolError("MCP error -32602: Tool rename_symbol not found", ["rename_symbol"]).content[0]!.text,
    /^Error \(read_only\): rename_symbol writes files and scalpel was started with --read-only/,
  );
});

test("through the SDK client: bad arguments, an unknown tool and a missing project are coded error results", async () => {
  const bad = await client.callTool({ name: "find_symbol", arguments: { name_path: 42 } });
  assert.equal(bad.isError, true);
  const badText = (bad.content as Array<{ text: string }>)[0]!.text;
  assert.match(badText, /^Error \(invalid_argument\): Invalid arguments for find_symbol: .*name_path/);
  assert.equal(bad.structuredContent, undefined);
  const unknown = await client.callTool({ name: "no_such_tool", arguments: {} });
  assert.match((unknown.content as Array<{ text: string }>)[0]!.text, /^Error \(unknown_tool\)/);
  const noProject = await client.callTool({ name: "list_memories", arguments: {} });
  assert.equal(noProject.isError, true);
  assert.match(
    (noProject.content as Array<{ text: string }>)[0]!.text,
    /^Error \(no_active_project\): .*activate_project/,
  );
  assert.deepEqual(noProject._meta, { "scalpel/error": { code: "no_active_project" } });
});

describe("paged lists: N of TOTAL, why, and a next call that walks the whole set once", () => {
  // The real definitions (their shrink steps and paging), fed answers the way their run() builds
  // them: the items from `offset` on, at most the tool's limit, and `total` for all of them.
  const search = allTools.find((t) => t.name === "search_for_pattern")!;
  const refs = allTools.find((t) => t.name === "find_referencing_symbols")!;
  const all = Array.from({ length: 2345 }, (_, i) => ({
    relative_path: `src/dir${i % 37}/file${i % 101}.ts`,
    line: i + 1,
    snippet: `${i + 1}: const value${i} = compute(input); // some text that makes the line longer`,
  }));
  /** Matching lines grouped by file as the tool groups them: consecutive lines of one file together. */
  const grouped = (list: typeof all) => {
    const out: Array<{ relative_path: string; hits: Array<{ line: number; snippet: string }> }> = [];
    for (const { relative_path, ...hit } of list) {
      const last = out.at(-1);
      if (last?.relative_path === relative_path) last.hits.push(hit);
      else out.push({ relative_path, hits: [hit] });
    }
    return out;
  };
  const linesOf = (matches: unknown) =>
    (matches as Array<{ hits: Array<{ line: number }> }>).flatMap((f) => f.hits.map((h) => h.line));
  const searchAnswer = (offset: number) => ({
    matches: grouped(all.slice(offset, offset + ((search.paging?.limit as number | undefined) ?? Infinity))),
    files: 101,
    total: all.length,
  });
  const parseNext = (next: unknown, tool: string) => {
    assert.equal(typeof next, "string");
    const at = (next as string).indexOf(" ");
    assert.equal((next as string).slice(0, at), tool);
    return JSON.parse((next as string).slice(at + 1)) as Record<string, unknown>;
  };

  test("walking search_for_pattern with next covers every match once, each page valid and within budget", () => {
    let args: Record<string, unknown> = { pattern: "value", max_answer_chars: 5000 };
    const seen: number[] = [];
    for (let page = 0; page < 1000; page++) {
      const offset = (args.offset as number | undefined) ?? 0;
      const fitted = fitBudget(search, searchAnswer(offset), 5000, args);
      check(search, fitted, `page ${page}`);
      assert.ok(JSON.stringify(fitted).length <= 5000);
      const listed = linesOf(fitted.matches);
      seen.push(...listed);
      assert.equal(fitted.total, all.length);
      if (!fitted.truncated) break;
      assert.equal(fitted.shown, listed.length);
      assert.ok(listed.length > 0, "a page lists something");
      assert.match(
        String(fitted.hint),
        new RegExp(
          `^Listed ${offset + 1}–${offset + listed.length} of 2345 matches \\(to fit max_answer_chars=5000\\)`,
        ),
      );
      const text = renderAnswer(search, fitted);
      assert.ok(text.includes(`next: ${fitted.next}`), "the text names the next call too");
      args = parseNext(fitted.next, "search_for_pattern");
      assert.deepEqual(args, { pattern: "value", max_answer_chars: 5000, offset: offset + listed.length });
    }
    assert.deepEqual(
      seen,
      all.map((m) => m.line),
      "no gaps, no repeats, in order",
    );
  });

  test("a page cut by the tool's own limit (not the budget) says so, and the last page is not truncated", () => {
    const big = 10_000_000;
    const first = fitBudget(search, searchAnswer(0), big, { pattern: "value", max_answer_chars: big });
    assert.equal(first.truncated, true);
    assert.equal(first.shown, 2000);
    assert.match(
      String(first.hint),
      /^Listed 1–2000 of 2345 matches \(this tool lists at most 2000 per call\)/,
    );
    const args = parseNext(first.next, "search_for_pattern");
    const second = searchAnswer(args.offset as number);
    const last = fitBudget(search, second, big, args);
    assert.equal(last, second, "the rest fits: returned as it is");
    assert.ok(!("truncated" in last) && !("next" in last) && !("shown" in last));
    assert.equal(linesOf(last.matches).length, 345);
  });

  test("every reference listed but context dropped: next is the same call with room for it", () => {
    // context_lines: 2 — five numbered lines per site; shrinking keeps only the site's own line.
    const around = (i: number) => `${"call(target); ".repeat(4)}${i}`;
    const references = Array.from({ length: 40 }, (_, i) => ({
      relative_path: `src/f${i}.ts`,
      line: i + 3,
      column: 3,
      containing_symbol: null,
      snippet: [0, 1, 2, 3, 4].map((d) => `${i + 1 + d}: ${around(i + 1 + d)}`).join("\n"),
    }));
    const symbol = sample(refs.output.symbol as z.ZodType, 1, 10);
    const answer = { symbol, files: groupReferences(references), total: 40, complete: true };
    const args = { name_path: "target", relative_path: "src/t.ts", max_answer_chars: 9000 };
    const fitted = fitBudget(refs, answer, 9000, args);
    check(refs, fitted, "snippets dropped");
    assert.equal(fitted.truncated, true);
    assert.equal(fitted.shown, 40);
    assert.deepEqual(
      (fitted.files as ReferenceFile[]).flatMap((f) => sitesOfFile(f).map((s) => s.code)),
      references.map((r) => around(r.line)),
      "each site keeps its own line",
    );
    assert.doesNotMatch(String(fitted.hint), /context_lines/, "no context left to shorten");
    assert.match(
      String(fitted.hint),
      /^All 40 references listed, details left out to fit max_answer_chars=9000/,
    );
    const next = parseNext(fitted.next, "find_referencing_symbols");
    assert.ok((next.max_answer_chars as number) >= JSON.stringify(answer).length);
    const again = fitBudget(refs, answer, next.max_answer_chars as number, next);
    assert.equal(again, answer, "the next call's budget holds the whole answer");
  });

  test("a single item over the whole budget is listed with its long text cut, so next moves on", () => {
    const huge = { relative_path: "src/min.js", line: 7, snippet: `7: ${"x".repeat(5000)}` };
    const answer = { matches: grouped([huge, ...all.slice(0, 5)]), files: 2, total: 6 };
    const fitted = fitBudget(search, answer, 1500, { pattern: "x" });
    check(search, fitted, "one huge item");
    assert.ok(JSON.stringify(fitted).length <= 1500);
    assert.equal(fitted.shown, 1);
    assert.deepEqual(linesOf(fitted.matches), [7]);
    assert.equal(fitted.next, `search_for_pattern ${JSON.stringify({ pattern: "x", offset: 1 })}`);
  });

  test("an unshortened page — first or last — carries total but never truncated, shown or next", () => {
    const small = { matches: grouped(all.slice(2340)), files: 3, total: 2345 };
    assert.equal(fitBudget(search, small, 20_000, { pattern: "x", offset: 2340 }), small);
    const none = { matches: [], files: 0, total: 0 };
    assert.equal(fitBudget(search, none, 20_000, { pattern: "x" }), none);
    assert.ok(!renderAnswer(search, none).includes("(truncated)"));
  });
});
