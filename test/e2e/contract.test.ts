// @tsserver-only scalpel's own behaviour (protocol, limits, security), not the server's: one backend is enough
/**
 * The contract test: every tool that tools/list returns is called through the MCP SDK Client over
 * stdio — the client calls listTools first and then checks every structuredContent against the
 * tool's outputSchema, as hosts do — on a copy of ts-basic with generated big files. Each tool gets
 * a small answer, and every tool that can be made to exceed its budget gets an answer over it
 * (a small max_answer_chars where the tool takes one; otherwise a 40 KB memory, a file with 300
 * type errors, big files, directories and diffs). Zero protocol errors: the SDK throws on -32602
 * and on schema violations, and `call` lets that throw. A tool added without a case here fails.
 */
import { strict as assert } from "node:assert";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { git } from "../helpers/change-repo.js";
import { copyFixture, type TempProject } from "../helpers/fixtures.js";
import { type ScalpelHandle, startScalpel, stopServing, type ToolResult } from "../helpers/mcp.js";

type Expect = "small" | "truncated" | "error";

const errorText = /^Error \(([a-z_]+)\): \S[\s\S]*$/;

/** 300 type errors, one per line. */
const errorsFile = Array.from(
  { length: 300 },
  (_, i) => `export const wrong${i}: number = "text ${i}";`,
).join("\n");

/** 400 small functions that all call `helper`, and one that nobody uses. */
const bigFile = [
  "export function helper(x: number): number {",
  "  return x + 1;",
  "}",
  "",
  ...Array.from(
    { length: 400 },
    (_, i) => `export function generated${i}(value: number): number {\n  return helper(value) * ${i};\n}\n`,
  ),
  "export function unusedThing(): number {",
  "  return 42;",
  "}",
  "",
].join("\n");

describe("contract: every tool through the SDK client, small and over budget", () => {
  let fx: TempProject;
  let h: ScalpelHandle;
  const called = new Set<string>();
  const failures: string[] = [];

  before(async () => {
    fx = await copyFixture("ts-basic");
    await mkdir(join(fx.dir, "src", "generated"), { recursive: true });
    await writeFile(join(fx.dir, "src", "generated", "errors300.ts"), `${errorsFile}\n`);
    await writeFile(join(fx.dir, "src", "generated", "big.ts"), bigFile);
    await mkdir(join(fx.dir, "docs"), { recursive: true });
    const longText = Array.from({ length: 3000 }, (_, i) => `line ${i + 1} of a long text file`).join("\n");
    await writeFile(join(fx.dir, "docs", "big.txt"), `${longText}\n`);
    await mkdir(join(fx.dir, "data", "many"), { recursive: true });
    await Promise.all(
      Array.from({ length: 1000 }, (_, i) =>
        writeFile(
          join(fx.dir, "data", "many", `file-${String(i).padStart(4, "0")}-with-a-longer-name.txt`),
          "x\n",
        ),
      ),
    );
    h = await startScalpel({ project: fx.dir, env: { SCALPEL_HOME: join(fx.base, "home") } });
  });

  after(() => stopServing(h, fx));

  /** Calls a tool (a protocol error throws) and checks the answer against what the case expects. */
  async function check(
    tool: string,
    args: Record<string, unknown>,
    expect: Expect,
  ): Promise<ToolResult<Record<string, unknown>>> {
    called.add(tool);
    const r = await h.call(tool, args);
    const what = `${tool}(${JSON.stringify(args).slice(0, 120)})`;
    if (expect === "error") {
      if (!r.isError) failures.push(`${what}: expected an error result, got ${r.text.slice(0, 200)}`);
      else if (!errorText.test(r.text)) failures.push(`${what}: error text without a code: ${r.text}`);
      if (r.structured !== undefined) failures.push(`${what}: an error result carries structuredContent`);
      return r;
    }
    if (r.isError) {
      failures.push(`${what}: unexpected error ${r.text}`);
      return r;
    }
    if (errorText.test(r.text)) failures.push(`${what}: a normal answer reads like an error`);
    const s = r.structured;
    if (expect === "truncated") {
      if (s.truncated !== true)
        failures.push(`${what}: over budget but not truncated (${JSON.stringify(s).length} chars)`);
      if (typeof s.hint !== "string" || s.hint === "") failures.push(`${what}: truncated without a hint`);
      else if (!r.text.includes(s.hint)) failures.push(`${what}: the hint is not in the text`);
      // A paged list says N of TOTAL and the one call that gets the rest, in both forms.
      if (s.shown !== undefined) {
        if (typeof s.total !== "number") failures.push(`${what}: shown without total`);
        if (typeof s.next !== "string" || !s.next.startsWith(`${tool} {`))
          failures.push(`${what}: shortened page without a next call: ${String(s.next)}`);
        else if (!r.text.includes(`next: ${s.next}`))
          failures.push(`${what}: the next call is not in the text`);
        if (!String(s.hint).includes(`of ${s.total}`) && !String(s.hint).startsWith("All "))
          failures.push(`${what}: the hint does not say N of TOTAL: ${String(s.hint)}`);
      }
    } else if ("truncated" in s || "hint" in s || "shown" in s || "next" in s) {
      failures.push(`${what}: a small answer says truncated/hint: ${JSON.stringify(s).slice(0, 200)}`);
    }
    return r;
  }

  it("calls every listed tool with small and over-budget answers, with no protocol error", async () => {
    // Project and session.
    await check("activate_project", { project: fx.dir }, "small");
    await check("get_current_config", {}, "small");
    await check("onboarding", {}, "small");
    await check("initial_instructions", {}, "small");

    // Memories: a 40 KB memory is over the default budget of read_memory, which has no parameter for it.
    await check("list_memories", {}, "small");
    const big = Array.from({ length: 800 }, (_, i) => `- note ${i}: the build runs with npm test.`).join(
      "\n",
    );
    assert.ok(big.length > 30_000);
    await check("write_memory", { name: "big", content: big }, "small");
    const cut = await check("read_memory", { name: "big" }, "truncated");
    // The hint's way to the rest works.
    assert.match(String(cut.structured.hint), /read_file/);
    await check("read_file", { relative_path: ".scalpel/memories/big.md", start_line: 700 }, "small");
    await check(
      "write_memory",
      { name: "topics/notes", content: "# Notes\nThe build runs with npm test.\n" },
      "small",
    );
    await check("read_memory", { name: "topics/notes" }, "small");
    await check(
      "edit_memory",
      { name: "topics/notes", needle: "npm test", replacement: "npm run test" },
      "small",
    );
    await check("edit_memory", { name: "topics/notes", needle: "not there", replacement: "x" }, "error");
    await check("list_memories", {}, "small");
    await check("delete_memory", { name: "topics/notes" }, "small");
    await check("read_memory", { name: "topics/notes" }, "error");

    // Symbols, a few in parallel as hosts send them.
    await Promise.all([
      check("get_symbols_overview", { relative_path: "src/money.ts" }, "small"),
      check(
        "find_symbol",
        { name_path_pattern: "Money/add", relative_path: "src/money.ts", include_body: true },
        "small",
      ),
      check(
        "find_referencing_symbols",
        { name_path: "Money/double", relative_path: "src/money.ts" },
        "small",
      ),
      check("find_implementations", { name_path: "Shape", relative_path: "src/shapes.ts" }, "small"),
      check("get_type_info", { name_path: "Money/add", relative_path: "src/money.ts" }, "small"),
      check("get_call_hierarchy", { name_path: "Money/double", relative_path: "src/money.ts" }, "small"),
      // typescript-language-server offers no type hierarchy: a clear not_supported error.
      check("get_type_hierarchy", { name_path: "Shape", relative_path: "src/shapes.ts" }, "error"),
      check("search_symbols", { query: "money add", relative_path: "src/money.ts" }, "small"),
      check(
        "find_declaration",
        { relative_path: "src/money.ts", line: 13, identifier: "multiplyByRate" },
        "small",
      ),
      check("get_diagnostics_for_file", { relative_path: "src/money.ts" }, "small"),
      check("get_project_diagnostics", { relative_path: "src/money.ts" }, "small"),
    ]);
    await Promise.all([
      check("get_symbols_overview", { relative_path: "src", depth: 1, max_answer_chars: 500 }, "truncated"),
      check(
        "find_symbol",
        {
          name_path_pattern: "generated",
          substring_matching: true,
          include_body: true,
          max_answer_chars: 1000,
        },
        "truncated",
      ),
      check(
        "find_referencing_symbols",
        { name_path: "helper", relative_path: "src/generated/big.ts", max_answer_chars: 300 },
        "truncated",
      ),
      check(
        "find_referencing_symbols",
        { name_path: "helper", relative_path: "src/generated/big.ts", offset: 395 },
        "small",
      ),
      // 300 type errors: get_diagnostics_for_file has no max_answer_chars; the default budget applies.
      check("get_diagnostics_for_file", { relative_path: "src/generated/errors300.ts" }, "truncated"),
      check("get_project_diagnostics", { max_answer_chars: 2000 }, "truncated"),
      check("get_project_diagnostics", { relative_path: "no/such/dir" }, "error"),
      check("search_symbols", { query: "generated helper", max_answer_chars: 300 }, "truncated"),
      check("search_symbols", { query: "money", relative_path: "no/such/dir" }, "error"),
      check(
        "find_symbol",
        { name_path_pattern: "NoSuchSymbolAnywhere", relative_path: "src/nope.ts" },
        "error",
      ),
      check("find_declaration", { relative_path: "src/money.ts", line: 9999, identifier: "x" }, "error"),
      // 400 callers of helper: far over the default budget.
      check(
        "get_call_hierarchy",
        { name_path: "helper", relative_path: "src/generated/big.ts", max_items: 500 },
        "truncated",
      ),
      check("get_type_info", { relative_path: "src/money.ts", line: 9999, column: 1 }, "error"),
    ]);

    // Files and text.
    await Promise.all([
      check("read_file", { relative_path: "src/money.ts" }, "small"),
      check("read_file", { relative_path: "docs/big.txt" }, "truncated"),
      check("read_file", { relative_path: "src/money.ts", max_answer_chars: 150 }, "truncated"),
      check("read_file", { relative_path: "../outside.txt" }, "error"),
      check("list_dir", { relative_path: "src" }, "small"),
      check("list_dir", { relative_path: "data", recursive: true }, "truncated"),
      check("find_file", { file_mask: "money.ts" }, "small"),
      check("find_file", { file_mask: "*.txt" }, "truncated"),
      check("search_for_pattern", { pattern: "class Money", relative_path: "src" }, "small"),
      check(
        "search_for_pattern",
        { pattern: "return", relative_path: "src/generated", context_lines: 2 },
        "truncated",
      ),
      check(
        "search_for_pattern",
        { pattern: "return", relative_path: "src/generated", offset: 390 },
        "small",
      ),
      check("search_for_pattern", { pattern: "(unclosed" }, "error"),
    ]);

    // Writing tools: dry runs, real edits on the copy, and undo.
    await check(
      "create_text_file",
      { relative_path: "src/added.ts", content: "export const added = 1;\n", dry_run: true },
      "small",
    );
    await check(
      "create_text_file",
      { relative_path: "src/added.ts", content: "export const added = 1;\n" },
      "small",
    );
    await check("create_text_file", { relative_path: "src/added.ts", content: "x" }, "error");
    const huge = Array.from({ length: 2000 }, (_, i) => `export const value${i} = ${i};`).join("\n");
    await check(
      "create_text_file",
      { relative_path: "src/huge.ts", content: huge, dry_run: true },
      "truncated",
    );
    await check(
      "replace_content",
      { relative_path: "src/added.ts", needle: "= 1", replacement: "= 2", dry_run: true },
      "small",
    );
    await check(
      "replace_content",
      { relative_path: "src/added.ts", needle: "= 1", replacement: "= 2" },
      "small",
    );
    await check(
      "replace_content",
      { relative_path: "src/added.ts", needle: "absent", replacement: "x" },
      "error",
    );
    const double = "double(): Money {\nreturn this.multiplyByRate(2);\n}";
    await check(
      "replace_symbol_body",
      { name_path: "Money/double", relative_path: "src/money.ts", body: double, dry_run: true },
      "small",
    );
    await check(
      "replace_symbol_body",
      { name_path: "Money/double", relative_path: "src/money.ts", body: double },
      "small",
    );
    await check(
      "insert_before_symbol",
      { name_path: "makeMoney", relative_path: "src/money.ts", body: "export const before = 1;\n" },
      "small",
    );
    await check(
      "insert_after_symbol",
      { name_path: "makeMoney", relative_path: "src/money.ts", body: "export const after = 2;\n" },
      "small",
    );
    await check(
      "insert_after_symbol",
      { name_path: "Nope/none", relative_path: "src/money.ts", body: "x" },
      "error",
    );
    // Renaming a function called 400 times: the dry run's diff is far over the default budget.
    await check(
      "rename_symbol",
      { name_path: "helper", relative_path: "src/generated/big.ts", new_name: "assist", dry_run: true },
      "truncated",
    );
    await check(
      "rename_symbol",
      { name_path: "makeMonies", relative_path: "src/money.ts", new_name: "createMonies" },
      "small",
    );
    await check(
      "rename_symbol",
      { name_path: "makeMoney", relative_path: "src/money.ts", new_name: "not valid" },
      "error",
    );
    await check(
      "safe_delete_symbol",
      { name_path: "unusedThing", relative_path: "src/generated/big.ts", dry_run: true },
      "small",
    );
    await check(
      "safe_delete_symbol",
      { name_path: "unusedThing", relative_path: "src/generated/big.ts" },
      "small",
    );
    await check(
      "safe_delete_symbol",
      { name_path: "helper", relative_path: "src/generated/big.ts" },
      "error",
    );
    await check("undo_edit", { dry_run: true }, "small");
    await check("undo_edit", {}, "small");
    await check("undo_edit", { edit_id: "e00000000" }, "error");
    await check("get_code_actions", { relative_path: "src/money.ts", start_line: 1 }, "small");
    await check(
      "apply_code_action",
      {
        relative_path: "src/generated/big.ts",
        start_line: 1,
        title: "Move to a new file",
        dry_run: true,
        max_answer_chars: 200,
      },
      "truncated",
    );
    await check(
      "apply_code_action",
      { relative_path: "src/main.ts", start_line: 1, title: "no such action" },
      "error",
    );
    await check(
      "move_symbol",
      {
        name_path: "unusedThing",
        relative_path: "src/generated/big.ts",
        to_file: "src/generated/unused.ts",
        dry_run: true,
        max_answer_chars: 200,
      },
      "truncated",
    );
    await check("move_file", { relative_path: "src/unrelated.ts", to_path: "src/money.ts" }, "error");
    await check(
      "move_file",
      { relative_path: "src/unrelated.ts", to_path: "src/other/unrelated.ts", dry_run: true },
      "small",
    );

    // get_change_impact: no repository yet is a coded error; then one commit and a changed signature
    // with its callers outside the change (a small review, and one over a small budget).
    await check("get_change_impact", {}, "error");
    git(fx.dir, "init", "-q");
    git(fx.dir, "add", "-A");
    git(fx.dir, "commit", "-qm", "base");
    const money = join(fx.dir, "src", "money.ts");
    const before = await readFile(money, "utf8");
    await writeFile(money, before.replace("makeMoney(amount = 1,", "makeMoney(amount: number,"));
    const review = await check("get_change_impact", {}, "small");
    assert.ok(JSON.stringify(review.structured.affected).includes("makeMoney"), review.text);
    await check("get_change_impact", { max_answer_chars: 400 }, "truncated");
    await writeFile(money, before);

    // Arguments the SDK rejects before scalpel's handler runs come back as coded error results.
    await check("find_symbol", { name_path_pattern: 42 }, "error");
    await check("read_file", {}, "error");

    const listed = (await h.client.listTools()).tools.map((t) => t.name).sort();
    assert.deepEqual([...called].sort(), listed, "every listed tool has a case here, and only those");
    assert.deepEqual(failures, []);
    assert.deepEqual(h.badStdoutLines, [], "stdout carries only JSON-RPC");
    assert.deepEqual(h.hostPathLeaks, [], "no answer names a host path");
  });

  it("an unknown tool is a coded error result, not a protocol error", async () => {
    const r = await h.call("no_such_tool", {});
    assert.equal(r.isError, true);
    assert.match(r.text, /^Error \(unknown_tool\): /);
  });
});
