// @backends tsserver native:full
/**
 * Rename dry runs sized for agents: a rename across 100 generated files lists every file with its
 * edited sites and lines, shows the diffs of as many whole files as fit (never part of a hunk),
 * says how many of how many, and names the call with room for the whole diff; a small rename
 * carries its whole diff and never says `truncated`.
 */
import { strict as assert } from "node:assert";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { hashTree, makeTempProject, type TempProject } from "../helpers/fixtures.js";
import { editedFiles, type ScalpelHandle, startScalpel } from "../helpers/mcp.js";

const N = 100;
/** Calls per caller file, far enough apart (more than 2 × 3 context lines) to make separate hunks. */
const callsPerFile = 3;
const gap = 8;

interface DryRun {
  applied: boolean;
  files: string[];
  diff?: string;
  truncated?: boolean;
  total?: number;
  shown?: number;
  hint?: string;
  next?: string;
}

/** The generated project: `scaleBy` in src/util.ts, imported and called by N files. */
async function generate(dir: string): Promise<Map<string, number[]>> {
  await mkdir(join(dir, "src"), { recursive: true });
  await writeFile(
    join(dir, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { strict: true, noEmit: true, types: [] }, include: ["src"] }),
  );
  await writeFile(
    join(dir, "src/util.ts"),
    "export function scaleBy(x: number, k: number): number {\n  return x * k;\n}\n",
  );
  /** 1-based lines that mention scaleBy, per file. */
  const sites = new Map<string, number[]>([["src/util.ts", [1]]]);
  for (let i = 0; i < N; i++) {
    const rel = `src/user${String(i).padStart(3, "0")}.ts`;
    const lines = ['import { scaleBy } from "./util";', ""];
    const at = [1];
    for (let c = 0; c < callsPerFile; c++) {
      for (let g = 0; g < gap; g++) lines.push(`const pad${c}_${g} = ${g};`);
      lines.push(`export const v${c} = scaleBy(${i}, ${c + 2});`);
      at.push(lines.length);
    }
    await writeFile(join(dir, rel), `${lines.join("\n")}\n`);
    sites.set(rel, at);
  }
  return sites;
}

/**
 * Every hunk of a unified diff, checked whole: the lines after each `@@ -a,b +c,d @@` header hold
 * exactly b old and d new lines before the next header or file header. Returns files and hunks.
 */
function assertWholeHunks(diff: string): { files: string[]; hunks: number } {
  const lines = diff.split("\n");
  assert.equal(lines.at(-1), "", "the diff ends with a newline");
  lines.pop();
  const files: string[] = [];
  let hunks = 0;
  let i = 0;
  while (i < lines.length) {
    assert.match(lines[i]!, /^--- /, `file header at diff line ${i + 1}`);
    assert.match(lines[i + 1]!, /^\+\+\+ b\//);
    files.push(lines[i + 1]!.slice(6));
    i += 2;
    while (i < lines.length && lines[i]!.startsWith("@@")) {
      const m = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@$/.exec(lines[i]!);
      assert.ok(m, `hunk header: ${lines[i]}`);
      let old = m[1] === undefined ? 1 : Number(m[1]);
      let add = m[2] === undefined ? 1 : Number(m[2]);
      i++;
      while (old > 0 || add > 0) {
        const line = lines[i];
        assert.ok(line !== undefined, `hunk ${hunks + 1} of ${files.at(-1)} is cut short`);
        if (line.startsWith("-")) old--;
        else if (line.startsWith("+")) add--;
        else {
          assert.ok(line.startsWith(" "), `hunk line: ${line}`);
          old--;
          add--;
        }
        i++;
      }
      assert.ok(old === 0 && add === 0, "hunk line counts match its header");
      hunks++;
    }
  }
  return { files, hunks };
}

describe(`rename dry run across ${N} files (e2e, typescript-language-server)`, () => {
  let fx: TempProject;
  let h: ScalpelHandle;
  let sites: Map<string, number[]>;
  let tree0: Record<string, string>;
  const args = { name_path: "scaleBy", relative_path: "src/util.ts", new_name: "multiplyBy", dry_run: true };

  before(async () => {
    fx = await makeTempProject("scalpel-rename-summary-");
    sites = await generate(fx.dir);
    tree0 = await hashTree(fx.dir);
    h = await startScalpel({ project: fx.dir });
  });

  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  it("lists every file with its sites and shows whole files' diffs, N of TOTAL, within the budget", async () => {
    const r = await h.call<DryRun>("rename_symbol", args);
    assert.equal(r.isError, false, r.text);
    const a = r.structured;
    assert.ok(
      JSON.stringify(a).length <= 20_000,
      `answer fits the default budget: ${JSON.stringify(a).length}`,
    );
    assert.equal(a.applied, false);
    assert.deepEqual(
      editedFiles(a)
        .map((f) => f.relative_path)
        .sort(),
      [...sites.keys()].sort(),
    );
    assert.equal(a.truncated, true);
    assert.equal(a.total, N + 1, "total counts the files' diffs");
    assert.ok(a.diff, "some diffs are shown");
    const shown = assertWholeHunks(a.diff);
    assert.equal(a.shown, shown.files.length, "shown counts the whole files in diff");
    assert.ok(a.shown! > 0 && a.shown! < N + 1, `shown ${a.shown}`);
    assert.ok(a.hint?.includes(`${a.shown} of ${N + 1} files`), a.hint);
    for (const f of editedFiles(a)) {
      const expected = sites.get(f.relative_path)!;
      assert.equal(f.added_lines, expected.length, JSON.stringify(f));
      if (shown.files.includes(f.relative_path)) {
        assert.equal(f.sites, undefined, `${f.relative_path}: its diff is shown, no summary needed`);
      } else {
        assert.equal(f.sites, expected.length, JSON.stringify(f));
        assert.deepEqual(f.lines, expected.slice(0, 5), JSON.stringify(f));
      }
    }
    assert.match(r.text, /\(truncated\) Diffs of \d+ of 101 files/);
    assert.match(r.text, /src\/user\d{3}\.ts \(\+4 -4\) 4 sites, at lines 1, 11, 20, 29/);
    assert.match(r.text, /next: rename_symbol /);
    assert.deepEqual(await hashTree(fx.dir), tree0, "a dry run writes nothing");
  });

  it("the next call shows the whole diff, and does not say truncated", async () => {
    const first = (await h.call<DryRun>("rename_symbol", args)).structured;
    const m = /^rename_symbol (\{.*\})$/.exec(first.next ?? "");
    assert.ok(m, `next: ${first.next}`);
    const nextArgs = JSON.parse(m[1]!) as Record<string, unknown>;
    assert.equal(typeof nextArgs.max_answer_chars, "number");
    const r = await h.call<DryRun>("rename_symbol", nextArgs);
    assert.equal(r.isError, false, r.text);
    const a = r.structured;
    assert.equal(a.truncated, undefined);
    assert.equal(a.hint, undefined);
    assert.equal(a.shown, undefined);
    const whole = assertWholeHunks(a.diff!);
    assert.deepEqual(whole.files.sort(), [...sites.keys()].sort());
    assert.equal(whole.hunks, 1 + N * (1 + callsPerFile));
    for (const f of editedFiles(a)) assert.equal(f.sites, undefined);
    assert.doesNotMatch(r.text, /truncated/);
  });

  it("a tight budget still lists every file and cuts at whole hunks", async () => {
    const r = await h.call<DryRun>("rename_symbol", { ...args, max_answer_chars: 12_000 });
    assert.equal(r.isError, false, r.text);
    const a = r.structured;
    assert.ok(JSON.stringify(a).length <= 12_000, `${JSON.stringify(a).length}`);
    assert.equal(a.files.length, N + 1);
    assert.equal(a.total, N + 1);
    if (a.diff) assertWholeHunks(a.diff);
    assert.equal(editedFiles(a).filter((f) => f.sites === undefined).length, a.shown);
  });
});

describe("small rename dry run (e2e, typescript-language-server)", () => {
  let fx: TempProject;
  let h: ScalpelHandle;

  before(async () => {
    fx = await makeTempProject("scalpel-rename-small-");
    await mkdir(join(fx.dir, "src"));
    await writeFile(
      join(fx.dir, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { strict: true, noEmit: true, types: [] } }),
    );
    await writeFile(
      join(fx.dir, "src/a.ts"),
      "export function twice(x: number): number {\n  return 2 * x;\n}\n",
    );
    await writeFile(
      join(fx.dir, "src/b.ts"),
      'import { twice } from "./a";\n\nexport const four = twice(2);\n',
    );
    h = await startScalpel({ project: fx.dir });
  });

  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  it("carries the whole diff and never says truncated", async () => {
    const r = await h.call<DryRun>("rename_symbol", {
      name_path: "twice",
      relative_path: "src/a.ts",
      new_name: "double",
      dry_run: true,
    });
    assert.equal(r.isError, false, r.text);
    const a = r.structured;
    assert.equal(a.truncated, undefined);
    assert.equal(a.total, undefined);
    assert.equal(a.next, undefined);
    const whole = assertWholeHunks(a.diff!);
    assert.deepEqual(whole.files.sort(), ["src/a.ts", "src/b.ts"]);
    assert.equal(whole.hunks, 2);
    assert.ok(a.diff!.includes("+export const four = double(2);"), a.diff);
    for (const f of editedFiles(a)) assert.equal(f.sites, undefined);
    assert.doesNotMatch(r.text, /truncated/);
  });

  it("applied: each file's count of sites, no lines and no diff; show_diff brings the diff", async () => {
    const r = await h.call<DryRun>("rename_symbol", {
      name_path: "twice",
      relative_path: "src/a.ts",
      new_name: "times2",
    });
    assert.equal(r.isError, false, r.text);
    assert.equal(r.structured.applied, true);
    assert.equal(r.structured.diff, undefined);
    assert.deepEqual(
      editedFiles(r.structured)
        .map((f) => [f.relative_path, f.sites, f.lines])
        .sort(),
      [
        ["src/a.ts", 1, undefined],
        ["src/b.ts", 2, undefined],
      ],
    );
    const shown = await h.call<DryRun>("rename_symbol", {
      name_path: "times2",
      relative_path: "src/a.ts",
      new_name: "double",
      show_diff: true,
    });
    assert.equal(shown.isError, false, shown.text);
    assert.ok(shown.structured.diff?.includes("+export const four = double(2);"), shown.structured.diff);
  });
});
