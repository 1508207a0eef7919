/**
 * Honest counts and paging, through the SDK client on generated projects: a search with more than
 * 2,000 matching lines and a function referenced 500 times. Every shortened answer states
 * `shown` of `total` and a `next` call; following `next` lists every item exactly once. The
 * truth is computed here independently: a plain JS regex over the generated text, and the
 * positions of the generated call sites.
 */
import { strict as assert } from "node:assert";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { makeTempProject, siteKeys, type TempProject, writeTsconfig } from "../helpers/fixtures.js";
import {
  callOk,
  type Reference,
  type ReferenceFile,
  type ScalpelHandle,
  type SearchFile,
  searchHits,
  sitesOf,
  startScalpel,
  stopServing,
  type ToolResult,
} from "../helpers/mcp.js";

interface Page<T> {
  total: number;
  truncated?: boolean;
  shown?: number;
  next?: string;
  hint?: string;
  items: T[];
}

/** Follows `next` from the first call until an answer is not shortened; checks each page's envelope. */
async function walk<T>(
  h: ScalpelHandle,
  tool: string,
  args: Record<string, unknown>,
  itemsOf: (s: Record<string, unknown>) => T[],
): Promise<{ pages: Array<Page<T>>; items: T[] }> {
  const pages: Array<Page<T>> = [];
  let current: Record<string, unknown> | undefined = args;
  let offset = 0;
  while (current) {
    const r: ToolResult<Record<string, unknown>> = await h.call(tool, current);
    assert.equal(r.isError, false, r.text);
    const s = r.structured;
    const page: Page<T> = { ...(s as unknown as Page<T>), items: itemsOf(s) };
    pages.push(page);
    assert.ok(pages.length < 200, "the walk ends");
    if (!page.truncated) {
      assert.equal(page.next, undefined);
      assert.equal(page.shown, undefined);
      assert.doesNotMatch(r.text, /\(truncated\)/);
      break;
    }
    // N of TOTAL, why, and the one call that gets the rest — in both forms.
    assert.equal(page.shown, page.items.length);
    assert.ok(page.items.length > 0, "a shortened page still lists something");
    assert.ok(
      r.text.includes(String(page.hint)) && r.text.includes(`next: ${page.next}`),
      r.text.slice(-500),
    );
    if (offset + page.items.length === page.total) {
      // The rest is all here, only details were left out: next is this call with room for them.
      assert.match(
        String(page.hint),
        new RegExp(`^All ${page.items.length} \\S+ (from offset ${offset} )?listed, details left out`),
      );
      const roomy = JSON.parse(String(page.next).slice(String(page.next).indexOf(" ") + 1)) as Record<
        string,
        unknown
      >;
      assert.ok(
        (roomy.max_answer_chars as number) > ((args.max_answer_chars as number | undefined) ?? 20_000),
      );
      const full = await h.call<Record<string, unknown>>(tool, roomy);
      assert.equal(full.structured.truncated, undefined, "the next call's budget holds it all");
      const key = (x: unknown) => {
        const i = x as { relative_path: string; line: number };
        return `${i.relative_path}:${i.line}`;
      };
      const whole = itemsOf(full.structured);
      assert.deepEqual(whole.map(key), page.items.map(key), "the same items");
      assert.ok(
        whole.every((i) => typeof (i as { snippet?: unknown }).snippet === "string"),
        "now with snippets",
      );
      break;
    }
    assert.match(
      String(page.hint),
      new RegExp(`^Listed ${offset + 1}–${offset + page.items.length} of ${page.total} `),
    );
    assert.ok(
      r.text.includes(String(page.hint)) && r.text.includes(`next: ${page.next}`),
      r.text.slice(-500),
    );
    const at = String(page.next).indexOf(" ");
    assert.equal(String(page.next).slice(0, at), tool);
    const next = JSON.parse(String(page.next).slice(at + 1)) as Record<string, unknown>;
    offset += page.items.length;
    assert.deepEqual(next, { ...args, offset });
    current = next;
  }
  return { pages, items: pages.flatMap((p) => p.items) };
}

describe("paging: search_for_pattern over 2,000 matching lines, 500 references", () => {
  let fx: TempProject;
  let h: ScalpelHandle;
  const needleLines: string[] = [];
  let needleFiles = 0;
  const callSites: string[] = [];

  before(async () => {
    fx = await makeTempProject("scalpel-paging-");
    await writeTsconfig(fx.dir);
    // Text to search: 130 files with 0–40 lines that mention "needle" (some twice on one line,
    // which counts once), ~2,600 in all, in several directories.
    await mkdir(join(fx.dir, "notes", "a"), { recursive: true });
    await mkdir(join(fx.dir, "notes", "b"), { recursive: true });
    for (let f = 0; f < 130; f++) {
      const lines: string[] = [];
      const n = (f * 7) % 41;
      for (let i = 0; i < n; i++) {
        lines.push(`plain line ${i} of file ${f}`);
        lines.push(i % 5 === 0 ? `needle ${i} and another needle` : `a needle number ${i} in ${f}`);
      }
      const rel = `notes/${f % 2 === 0 ? "a" : "b"}/n${String(f).padStart(3, "0")}.txt`;
      const text = `${lines.join("\n")}\n`;
      await writeFile(join(fx.dir, rel), text);
      const hits = text
        .split("\n")
        .map((l, i) => (/needle/.test(l) ? `${rel}:${i + 1}` : null))
        .filter((x): x is string => x !== null);
      if (hits.length > 0) needleFiles++;
      needleLines.push(...hits);
    }
    // One exported function, referenced 500 times: 50 files, each an import and 9 calls.
    await mkdir(join(fx.dir, "src", "lib"), { recursive: true });
    await mkdir(join(fx.dir, "src", "callers"), { recursive: true });
    await writeFile(
      join(fx.dir, "src", "lib", "target.ts"),
      "export function target(x: number): number {\n  return x + 1;\n}\n",
    );
    for (let f = 0; f < 50; f++) {
      const rel = `src/callers/c${String(f).padStart(2, "0")}.ts`;
      const lines = [`import { target } from "../lib/target";`, ""];
      for (let k = 0; k < 9; k++)
        lines.push(`export function use${f}_${k}(v: number): number {`, `  return target(v) * ${k};`, "}");
      const text = `${lines.join("\n")}\n`;
      await writeFile(join(fx.dir, rel), text);
      text.split("\n").forEach((l, i) => {
        for (const m of l.matchAll(/\btarget\b(?!")/g)) callSites.push(`${rel}:${i + 1}:${m.index + 1}`);
      });
    }
    assert.equal(callSites.length, 500);
    // The project is opened through a symlinked alias of its root, so the server may name a file
    // by two paths; each site must still be listed once.
    const alias = join(fx.base, "alias");
    await symlink(fx.dir, alias);
    h = await startScalpel({ project: alias, env: { SCALPEL_HOME: join(fx.base, "home") } });
  });

  after(() => stopServing(h, fx));

  it("counts every matching line and file past the 2,000 listed, and walking with offset lists each once", async () => {
    assert.ok(needleLines.length > 2000, `the fixture has ${needleLines.length} matching lines`);
    const args = { pattern: "needle", relative_path: "notes" };
    const { pages, items } = await walk<{ relative_path: string; line: number }>(
      h,
      "search_for_pattern",
      args,
      (s) => searchHits(s as unknown as { matches: SearchFile[] }),
    );
    assert.ok(pages.length > 2, `${pages.length} pages at the default budget`);
    for (const p of pages) {
      assert.equal(p.total, needleLines.length, "total is the truth on every page");
      assert.equal((p as unknown as { files: number }).files, needleFiles);
    }
    const listed = items.map((m) => `${m.relative_path}:${m.line}`);
    assert.equal(new Set(listed).size, listed.length, "no repeats");
    assert.deepEqual([...listed].sort(), [...needleLines].sort(), "no gaps");
  });

  it("with a budget large enough, a page stops at the tool's 2,000 and says so; the next lists the rest", async () => {
    const args = { pattern: "needle", relative_path: "notes", max_answer_chars: 5_000_000 };
    const first = await callOk<Page<unknown> & { matches: SearchFile[] }>(h, "search_for_pattern", args);
    assert.equal(first.total, needleLines.length);
    assert.equal(searchHits(first).length, 2000);
    assert.equal(first.shown, 2000);
    assert.match(
      String(first.hint),
      /^Listed 1–2000 of \d+ matches \(this tool lists at most 2000 per call\)/,
    );
    const rest = await callOk<Page<unknown> & { matches: SearchFile[] }>(h, "search_for_pattern", {
      ...args,
      offset: 2000,
    });
    assert.equal(searchHits(rest).length, needleLines.length - 2000);
    assert.equal(rest.truncated, undefined);
    // A small answer: the truth, no envelope noise.
    const one = await h.call<Record<string, unknown>>("search_for_pattern", {
      pattern: "needle 5 and",
      relative_path: "notes",
    });
    assert.equal(one.structured.truncated, undefined);
    assert.match(one.text, /^\d+ match(es)? in \d+ files?:/);
  });

  it("find_referencing_symbols: total 500, pages cover every site exactly once, no duplicates", async () => {
    // 500 sites of one line each fit the default budget since they are compact (issue 19): a
    // smaller budget makes the pages.
    const args = { name_path: "target", relative_path: "src/lib/target.ts", max_answer_chars: 8000 };
    // Pages count sites, not files: a page may end inside a file and the next go on there.
    const { pages, items } = await walk<Reference>(h, "find_referencing_symbols", args, (s) =>
      sitesOf(s as unknown as { files: ReferenceFile[] }),
    );
    assert.ok(pages.length > 1, "500 references do not fit 8,000 characters");
    for (const p of pages) {
      assert.equal(p.total, 500);
      // Snippets were dropped to fit, so the hint must not send the agent to context_lines.
      assert.doesNotMatch(String(p.hint ?? ""), /context_lines/);
    }
    const listed = siteKeys(items);
    assert.equal(new Set(listed).size, listed.length, "each site once");
    const truth = callSites.map((k) => {
      const [relative_path, line, column] = k.split(":");
      return { relative_path: relative_path!, line: Number(line), column: Number(column) };
    });
    assert.deepEqual(listed, siteKeys(truth));
    // A filtered small answer carries total and no truncation.
    const small = await h.call<Record<string, unknown>>("find_referencing_symbols", {
      ...args,
      include_kinds: ["Function"],
      offset: 440,
    });
    assert.equal(small.structured.total, 450, "9 calls in each of 50 files are inside functions");
    assert.equal(sitesOf(small.structured as unknown as { files: ReferenceFile[] }).length, 10);
    assert.equal(small.structured.truncated, undefined);
    assert.match(small.text, /^450 references to target/);
  });
});
