/**
 * Overviews that degrade by depth before anything else and never to a bare count, and paging for
 * overviews and find_symbol, through the SDK client on a generated project. The truth (names and
 * line ranges) is what the generator wrote, computed here independently of any language server.
 */
import { strict as assert } from "node:assert";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { makeTempProject, type TempProject } from "../helpers/fixtures.js";
import {
  type OverviewFile,
  overviewFiles,
  type ScalpelHandle,
  startScalpel,
  stopServing,
  type ToolResult,
} from "../helpers/mcp.js";

interface Sym {
  name_path: string;
  kind: string;
  start_line: number;
  end_line: number;
  children?: Sym[];
}
/** A file entry read back (an outline string, or a file with its Symbol objects). */
type FileEntry = ReturnType<typeof overviewFiles>[number];

/** `name_path start-end` for each top-level symbol of a file entry, whichever form it came in. */
function topLevel(f: FileEntry): string[] {
  return f.symbols.map((s) => `${s.name_path} ${s.start_line}-${s.end_line}`);
}

/** Follows `next` until an answer lists the rest; checks shown/total/next on each page. */
async function walk(
  h: ScalpelHandle,
  tool: string,
  args: Record<string, unknown>,
  key: string,
): Promise<{ pages: number; items: unknown[]; totals: number[] }> {
  const items: unknown[] = [];
  const totals: number[] = [];
  let current: Record<string, unknown> | undefined = args;
  let pages = 0;
  while (current) {
    const r: ToolResult<Record<string, unknown>> = await h.call(tool, current);
    assert.equal(r.isError, false, r.text);
    const s = r.structured;
    const list = s[key] as unknown[];
    pages++;
    assert.ok(pages < 100, "the walk ends");
    assert.doesNotMatch(r.text, /\d+ symbols?\)/, "never a bare count");
    assert.ok(JSON.stringify(s).length <= ((args.max_answer_chars as number | undefined) ?? 20_000));
    totals.push(s.total as number);
    items.push(...list);
    const offset: number = (current.offset as number | undefined) ?? 0;
    if (s.truncated !== true || offset + list.length === s.total) {
      if (s.truncated === true) assert.match(String(s.hint), /^All \d+ \S+ (from offset \d+ )?listed/);
      break;
    }
    assert.equal(s.shown, list.length);
    assert.ok(list.length > 0);
    assert.ok(r.text.includes(`next: ${s.next}`));
    const next = String(s.next);
    assert.equal(next.slice(0, next.indexOf(" ")), tool);
    current = JSON.parse(next.slice(next.indexOf(" ") + 1)) as Record<string, unknown>;
    assert.deepEqual(current, { ...args, offset: offset + list.length });
  }
  return { pages, items, totals };
}

describe("overviews degrade by depth, then compact, then page; find_symbol pages", () => {
  let fx: TempProject;
  let h: ScalpelHandle;
  /** src/big.ts's top-level symbols as `name_path start-end`. */
  const bigTruth: string[] = [];
  /** src/mods/*.ts: path → top-level `name_path start-end`. */
  const modTruth = new Map<string, string[]>();
  const runTruth: string[] = [];

  before(async () => {
    fx = await makeTempProject("scalpel-overview-");
    await writeFile(
      join(fx.dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { target: "ES2022", module: "ESNext", strict: true, noEmit: true, types: [] },
        include: ["src"],
      }),
    );
    await mkdir(join(fx.dir, "src", "mods"), { recursive: true });
    await mkdir(join(fx.dir, "src", "runners"), { recursive: true });
    // 400 top-level symbols of four kinds, classes with members (depth 1 has something to drop).
    const lines: string[] = [];
    const add = (name: string, body: string[]) => {
      const start = lines.length + 1;
      lines.push(...body);
      bigTruth.push(`${name} ${start}-${lines.length}`);
      lines.push("");
    };
    for (let i = 0; i < 400; i++) {
      const n = `SchemaPart${String(i).padStart(3, "0")}`;
      if (i % 4 === 0)
        add(`Zod${n}`, [
          `export class Zod${n} {`,
          "  parse(input: unknown): unknown {",
          "    return input;",
          "  }",
          "  optional(): this {",
          "    return this;",
          "  }",
          "}",
        ]);
      else if (i % 4 === 1)
        add(`make${n}`, [`export function make${n}(x: number): number {`, "  return x;", "}"]);
      else if (i % 4 === 2) add(`I${n}`, [`export interface I${n} {`, "  value: string;", "}"]);
      else add(`value${n}`, [`export const value${n} = ${i};`]);
    }
    await writeFile(join(fx.dir, "src", "big.ts"), `${lines.join("\n")}\n`);
    // 60 modules of 30 functions each: the directory overview is well over the default budget.
    for (let f = 0; f < 60; f++) {
      const rel = `src/mods/m${String(f).padStart(2, "0")}.ts`;
      const body: string[] = [];
      const names: string[] = [];
      for (let k = 0; k < 30; k++) {
        names.push(`module${f}Function${k} ${body.length + 1}-${body.length + 3}`);
        body.push(`export function module${f}Function${k}(a: string): string {`, "  return a;", "}");
      }
      await writeFile(join(fx.dir, rel), `${body.join("\n")}\n`);
      modTruth.set(rel, names);
    }
    // 250 methods named `run`: 25 files of 10 classes.
    for (let f = 0; f < 25; f++) {
      const rel = `src/runners/r${String(f).padStart(2, "0")}.ts`;
      const body: string[] = [];
      for (let k = 0; k < 10; k++) {
        body.push(`export class Runner${f}x${k} {`, "  run(): number {", `    return ${k};`, "  }", "}");
        runTruth.push(`${rel}:Runner${f}x${k}/run:${body.length - 3}`);
      }
      await writeFile(join(fx.dir, rel), `${body.join("\n")}\n`);
    }
    h = await startScalpel({ project: fx.dir, env: { SCALPEL_HOME: join(fx.base, "home") } });
  });

  after(() => stopServing(h, fx));

  it("a 400-symbol file: every top-level name and line range within the default budget", async () => {
    const r = await h.call<Record<string, unknown>>("get_symbols_overview", { relative_path: "src/big.ts" });
    assert.ok(JSON.stringify(r.structured).length <= 20_000 && r.text.length <= 20_000);
    // A single file's total counts its top-level symbols; all are listed, their details left out.
    assert.equal(r.structured.total, 400);
    assert.equal(r.structured.shown, 400);
    assert.match(String(r.structured.hint), /^All 400 top-level symbols listed, details left out/);
    const files = overviewFiles(r.structured.files as OverviewFile[]);
    assert.equal(files.length, 1);
    assert.deepEqual(topLevel(files[0]!), bigTruth);
  });

  it("depth 1 on the same file drops the members first, never the names", async () => {
    const r = await h.call<Record<string, unknown>>("get_symbols_overview", {
      relative_path: "src/big.ts",
      depth: 1,
    });
    const f = overviewFiles(r.structured.files as OverviewFile[])[0]!;
    assert.deepEqual(topLevel(f), bigTruth);
    assert.equal(r.structured.truncated, true);
    // With room, the members are there: a smaller slice of the file still fits at depth 1.
    const roomy = await h.call<Record<string, unknown>>("get_symbols_overview", {
      relative_path: "src/big.ts",
      depth: 1,
      max_answer_chars: 400_000,
    });
    const full = overviewFiles(roomy.structured.files as OverviewFile[])[0]!;
    assert.equal(roomy.structured.truncated, undefined);
    assert.deepEqual(
      full.symbols?.find((s) => s.name_path === "ZodSchemaPart000")?.children?.map((c) => c.name_path),
      ["ZodSchemaPart000/parse", "ZodSchemaPart000/optional"],
    );
  });

  it("a directory over budget pages through every file once, names and lines intact", async () => {
    const args = { relative_path: "src/mods", max_answer_chars: 8_000 };
    const { pages, items, totals } = await walk(h, "get_symbols_overview", args, "files");
    assert.ok(pages > 2, `${pages} pages`);
    assert.ok(totals.every((t) => t === 60));
    const files = overviewFiles(items as OverviewFile[]);
    assert.deepEqual(
      files.map((f) => f.relative_path),
      [...modTruth.keys()].sort(),
      "no gaps, no repeats",
    );
    for (const f of files) assert.deepEqual(topLevel(f), modTruth.get(f.relative_path));
  });

  it("find_symbol with 250 matches says N of TOTAL and pages through all of them", async () => {
    const args = { name_path_pattern: "run", relative_path: "src/runners" };
    const { pages, items, totals } = await walk(h, "find_symbol", args, "symbols");
    assert.equal(pages, 3);
    assert.deepEqual(totals, [250, 250, 250]);
    const got = (items as Array<Sym & { relative_path: string }>).map(
      (s) => `${s.relative_path}:${s.name_path}:${s.start_line}`,
    );
    assert.equal(new Set(got).size, 250, "no repeats");
    assert.deepEqual([...got].sort(), [...runTruth].sort(), "no gaps");
  });

  it("find_symbol with max_matches: the hint names that limit, and next (keeping it) walks all 250", async () => {
    const args = { name_path_pattern: "run", relative_path: "src/runners", max_matches: 40 };
    const first = await h.call<Record<string, unknown>>("find_symbol", args);
    assert.equal(first.structured.shown, 40);
    assert.match(
      String(first.structured.hint),
      /^Listed 1–40 of 250 symbols \(max_matches=40 lists at most 40 per call\); the call in next lists the rest from offset 40\./,
    );
    assert.doesNotMatch(String(first.structured.hint), /100/);
    assert.ok(first.text.includes("(max_matches=40 lists at most 40 per call)"), "the text says it too");
    const { pages, items } = await walk(h, "find_symbol", args, "symbols");
    assert.equal(pages, 7);
    const got = (items as Array<Sym & { relative_path: string }>).map(
      (s) => `${s.relative_path}:${s.name_path}:${s.start_line}`,
    );
    assert.deepEqual(got.sort(), [...runTruth].sort(), "every match once");
  });

  it("a single file whose outline alone is over the budget pages its top-level symbols with offset", async () => {
    const max = 2_500;
    const args = { relative_path: "src/big.ts", max_answer_chars: max };
    const seen: string[] = [];
    let current: Record<string, unknown> | undefined = args;
    let pages = 0;
    while (current) {
      const r: ToolResult<Record<string, unknown>> = await h.call("get_symbols_overview", current);
      assert.equal(r.isError, false, r.text);
      const s = r.structured;
      pages++;
      assert.ok(pages < 100, "the walk ends");
      assert.ok(JSON.stringify(s).length <= max, `page ${pages}: JSON within the budget`);
      assert.ok(r.text.length <= max, `page ${pages}: text within the budget`);
      assert.equal(s.total, 400, "total counts the file's top-level symbols");
      const files = overviewFiles(s.files as OverviewFile[]);
      assert.equal(files.length, 1);
      const listed = topLevel(files[0]!);
      seen.push(...listed);
      if (s.truncated !== true) {
        assert.equal(s.next, undefined);
        break;
      }
      const offset: number = (current.offset as number | undefined) ?? 0;
      if (offset + listed.length === 400) {
        // The rest is all here in outline form: next is this call with room for the details.
        assert.match(
          String(s.hint),
          new RegExp(`^All ${listed.length} top-level symbols from offset ${offset} listed`),
        );
        break;
      }
      assert.equal(s.shown, listed.length);
      assert.ok(listed.length > 0);
      const hint = String(s.hint);
      assert.match(
        hint,
        new RegExp(
          `^Listed ${offset + 1}–${offset + listed.length} of 400 top-level symbols \\(to fit max_answer_chars=${max}\\)`,
        ),
      );
      assert.doesNotMatch(hint, /single file|sub-directory/, "no advice to ask for what was asked");
      assert.ok(r.text.includes(`(truncated) ${hint}`) && r.text.includes(`next: ${s.next}`));
      const next = String(s.next);
      current = JSON.parse(next.slice(next.indexOf(" ") + 1)) as Record<string, unknown>;
      assert.deepEqual(current, { ...args, offset: offset + listed.length });
    }
    assert.ok(pages > 2, `${pages} pages`);
    assert.deepEqual(seen, bigTruth, "every top-level symbol once, in order, no gaps");
  });

  it("find_symbol in one file walks its 400 matches as whole symbols", async () => {
    const args = {
      name_path_pattern: "SchemaPart",
      substring_matching: true,
      relative_path: "src/big.ts",
      max_matches: 1000,
      max_answer_chars: 4_000,
    };
    const { pages, items } = await walk(h, "find_symbol", args, "symbols");
    assert.ok(pages > 2, `${pages} pages`);
    assert.deepEqual(
      (items as Sym[]).map((s) => `${s.name_path} ${s.start_line}-${s.end_line}`),
      bigTruth,
      "no gaps, no repeats",
    );
  });
});
