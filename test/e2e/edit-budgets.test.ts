// @backends tsserver native:full
/**
 * Every writing tool takes max_answer_chars, and a dry run over it gives a `next` that works:
 * through the SDK client, on a generated file with 120 far-apart edit sites, a replace_content dry
 * run, an insert_after_symbol dry run with a 400-line body and an undo_edit dry run are cut at
 * whole hunks within the budget in both forms (JSON and text), say how much is shown of how much,
 * and the call in `next` returns the whole diff — equal to the diff a roomy call gives — while
 * nothing is written until the edit is applied.
 */
import { strict as assert } from "node:assert";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { hashTree, makeTempProject, type TempProject, writeTsconfig } from "../helpers/fixtures.js";
import {
  editedFiles,
  type ScalpelHandle,
  startScalpel,
  stopServing,
  type ToolResult,
} from "../helpers/mcp.js";

interface Edit {
  applied: boolean;
  edit_id?: string;
  files: string[];
  diff?: string;
  truncated?: boolean;
  hint?: string;
  total?: number;
  shown?: number;
  next?: string;
}

/** `tool {json}` → [tool, args]. */
function parseNext(next: string): [string, Record<string, unknown>] {
  const at = next.indexOf(" ");
  return [next.slice(0, at), JSON.parse(next.slice(at + 1)) as Record<string, unknown>];
}

describe("edit tools: max_answer_chars and a next that works", () => {
  let fx: TempProject;
  let h: ScalpelHandle;
  /** 1-based lines of the 120 `OLD_VALUE` sites, ten lines apart (one hunk each). */
  const siteLines: number[] = [];

  before(async () => {
    fx = await makeTempProject("scalpel-edit-budgets-");
    await writeTsconfig(fx.dir);
    await mkdir(join(fx.dir, "src"), { recursive: true });
    const lines: string[] = ["export const OLD = 1;", ""];
    for (let i = 0; i < 120; i++) {
      lines.push(`export function step${i}(): number {`);
      for (let k = 0; k < 4; k++) lines.push(`  // padding ${i}.${k}`);
      lines.push("  return OLD;");
      siteLines.push(lines.length);
      lines.push("}", "", "", "");
    }
    await writeFile(join(fx.dir, "src", "steps.ts"), `${lines.join("\n")}\n`);
    h = await startScalpel({ project: fx.dir, env: { SCALPEL_HOME: join(fx.base, "home") } });
  });

  after(() => stopServing(h, fx));

  /** Calls a dry run with a small budget, checks the shortened answer and follows its next. */
  async function shortenedThenWhole(tool: string, args: Record<string, unknown>, max: number) {
    const before = await hashTree(fx.dir);
    const r: ToolResult<Edit> = await h.call(tool, { ...args, dry_run: true, max_answer_chars: max });
    assert.equal(r.isError, false, r.text);
    const s = r.structured;
    assert.ok(JSON.stringify(s).length <= max, `JSON ${JSON.stringify(s).length} > ${max}`);
    assert.ok(r.text.length <= max, `text ${r.text.length} > ${max}`);
    assert.equal(s.applied, false);
    assert.equal(s.truncated, true);
    assert.ok(s.hint && s.next, JSON.stringify(s).slice(0, 400));
    assert.match(s.hint, /^Diffs of \d+ of \d+ files?( and \d+ hunks? of the next)? are shown/);
    assert.ok(r.text.includes(`(truncated) ${s.hint}`) && r.text.includes(`next: ${s.next}`), "text too");
    const [nextTool, nextArgs] = parseNext(s.next);
    assert.equal(nextTool, tool);
    assert.deepEqual(
      { ...nextArgs, max_answer_chars: undefined },
      { ...args, dry_run: true, max_answer_chars: undefined },
    );
    assert.ok((nextArgs.max_answer_chars as number) > max);
    const whole: ToolResult<Edit> = await h.call(tool, nextArgs);
    assert.equal(whole.isError, false, whole.text);
    assert.equal(whole.structured.truncated, undefined, "the call in next has room for everything");
    const roomy: ToolResult<Edit> = await h.call(tool, {
      ...args,
      dry_run: true,
      max_answer_chars: 1_000_000,
    });
    assert.equal(whole.structured.diff, roomy.structured.diff);
    // Cut at whole hunks: the shortened diff is a front part of the whole one, ending at a hunk's end.
    const shown = s.diff ?? "";
    assert.ok(whole.structured.diff!.startsWith(shown));
    const after = whole.structured.diff!.slice(shown.length);
    assert.ok(after === "" || after.startsWith("@@") || after.startsWith("--- "), after.slice(0, 80));
    assert.deepEqual(await hashTree(fx.dir), before, "a dry run writes nothing");
    return { short: s, whole: whole.structured };
  }

  it("replace_content: 120 sites over the budget, every hunk reached through next", async () => {
    const args = {
      relative_path: "src/steps.ts",
      needle: "return OLD;",
      replacement: "return OLD + 1;",
      allow_multiple: true,
    };
    const { short, whole } = await shortenedThenWhole("replace_content", args, 3_000);
    const file = editedFiles(short).find((f) => f.relative_path === "src/steps.ts")!;
    assert.equal(file.sites, 120, "the file's edited ranges are counted although its diff is cut");
    assert.deepEqual(file.lines, siteLines.slice(0, 5));
    assert.equal(short.total, 1);
    assert.equal(short.shown, 0, "no file's diff is shown whole");
    assert.equal(whole.diff!.split("\n").filter((l) => l === "+  return OLD + 1;").length, 120);
  });

  it("insert_after_symbol: a 400-line body over the budget; the hint names the budget that shows it all", async () => {
    const body = [
      "export function generated(): number[] {",
      ...Array.from({ length: 400 }, (_, i) => `  const v${i} = ${i};`),
      "  return [v0];",
      "}",
    ].join("\n");
    const args = { name_path: "step3", relative_path: "src/steps.ts", body };
    const full: ToolResult<Edit> = await h.call("insert_after_symbol", {
      ...args,
      dry_run: true,
      max_answer_chars: 1_000_000,
    });
    for (let i = 0; i < 400; i += 57) assert.ok(full.structured.diff!.includes(`+  const v${i} = ${i};`));
    // The diff of an insert is about its body, so a next repeating the body never fits a budget
    // the diff is over: no next (cut, it would not work); the hint names the budget that shows it
    // all, and that budget does.
    const before = await hashTree(fx.dir);
    const small: ToolResult<Edit> = await h.call("insert_after_symbol", {
      ...args,
      dry_run: true,
      max_answer_chars: 4_000,
    });
    assert.ok(JSON.stringify(small.structured).length <= 4_000 && small.text.length <= 4_000);
    assert.equal(small.structured.truncated, true);
    assert.equal(small.structured.next, undefined);
    const need = /same arguments and max_answer_chars=(\d+)/.exec(String(small.structured.hint));
    assert.ok(need, small.structured.hint);
    const again: ToolResult<Edit> = await h.call("insert_after_symbol", {
      ...args,
      dry_run: true,
      max_answer_chars: Number(need[1]),
    });
    assert.equal(again.structured.truncated, undefined);
    assert.equal(again.structured.diff, full.structured.diff);
    assert.deepEqual(await hashTree(fx.dir), before, "a dry run writes nothing");
  });

  it("an applied edit takes the budget too; undo_edit's dry run pages the same way", async () => {
    const r: ToolResult<Edit> = await h.call("replace_content", {
      relative_path: "src/steps.ts",
      needle: "return OLD;",
      replacement: "return OLD * 2;",
      allow_multiple: true,
      max_answer_chars: 5_000,
    });
    assert.equal(r.isError, false, r.text);
    assert.equal(r.structured.applied, true);
    assert.ok(JSON.stringify(r.structured).length <= 5_000 && r.text.length <= 5_000);
    const { whole } = await shortenedThenWhole("undo_edit", { edit_id: r.structured.edit_id }, 3_000);
    assert.equal(whole.diff!.split("\n").filter((l) => l === "+  return OLD;").length, 120);
    const undone: ToolResult<Edit> = await h.call("undo_edit", { edit_id: r.structured.edit_id });
    assert.equal(undone.structured.applied, true, undone.text);
  });
});
