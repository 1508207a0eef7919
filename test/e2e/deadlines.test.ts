/**
 * Bounds over the built CLI, through the SDK client: a catastrophic regex in each of the three
 * tools that take one, a request over the 10 MiB input limit, a 5 MB rewrite and a call past its
 * tool deadline each answer within their bound — and the server answers the next call normally.
 * The bounds are asserted with wide margins: the machine is shared and noisy; without the bounds
 * these calls ran for minutes or ended the server.
 */
import { strict as assert } from "node:assert";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { makeTempProject, type TempProject } from "../helpers/fixtures.js";
import {
  callOk,
  type EditResult,
  type ScalpelHandle,
  type SearchFile,
  searchHits,
  startScalpel,
} from "../helpers/mcp.js";
import { byTier, scaleCase } from "../helpers/tier.js";

/** `(a+)+$` backtracks exponentially on a run of `a`s that does not end the line (2.2 s for 24 of them). */
const catastrophic = "(a+)+$";
const slowLine = `${"a".repeat(100_000)}!`;
// Short bounds: every case below burns a core for the whole bound (that is the point of it). The
// full tier keeps 3 s for its 5 MB regex rewrite, which must finish within the bound.
const regexSeconds = byTier(1, 3);
const tooSlow = (what: string, where = "") =>
  new RegExp(`^Error \\(pattern_too_slow\\): The ${what} ran longer than ${regexSeconds} s${where}`);
/** What a busy 2-core machine may add to a bound before the answer arrives. */
const marginMs = 20_000;

interface SearchResult {
  matches: SearchFile[];
  files: number;
  complete?: boolean;
  incomplete_reason?: string;
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await work();
  return { value, ms: Date.now() - started };
}

/** 5 MB of text, one numbered line after another. */
function bigText(tag: string, lines = 80_000): string {
  return Array.from(
    { length: lines },
    (_, i) => `line ${i} of the ${tag} text, x1 with some padding here\n`,
  ).join("");
}

describe("deadlines and input bounds (e2e)", () => {
  let fx: TempProject;
  let h: ScalpelHandle;
  let env: Record<string, string>;

  before(async () => {
    fx = await makeTempProject("scalpel-deadlines-");
    await writeFile(join(fx.dir, "slow.txt"), `${slowLine}\n`);
    await writeFile(join(fx.dir, "hello.txt"), "hello world\nsecond line\n");
    await mkdir(join(fx.dir, ".scalpel", "memories"), { recursive: true });
    await writeFile(join(fx.dir, ".scalpel", "memories", "slow.md"), `# Slow\n\n${slowLine}\n`);
    await mkdir(join(fx.base, "home"));
    env = { SCALPEL_HOME: join(fx.base, "home"), SCALPEL_REGEX_TIMEOUT: String(regexSeconds) };
    h = await startScalpel({ project: fx.dir, env });
  });

  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  const searchHello = async () => {
    const r = await callOk<SearchResult>(h, "search_for_pattern", { pattern: "hel+o" });
    assert.deepEqual(
      searchHits(r).map((m) => `${m.relative_path}:${m.line}`),
      ["hello.txt:1"],
    );
    assert.notEqual(r.complete, false);
  };

  it("search_for_pattern: a catastrophic pattern stops at its bound, and the server stays responsive", async () => {
    const slow = timed(() =>
      callOk<SearchResult>(h, "search_for_pattern", { pattern: catastrophic, relative_path: "slow.txt" }),
    );
    // While the pattern runs, other calls are answered: the main thread is free.
    const meanwhile = await timed(() => callOk(h, "read_file", { relative_path: "hello.txt" }));
    assert.ok(meanwhile.ms < 5_000, `read_file waited ${meanwhile.ms} ms behind the regex`);
    const { value, ms } = await slow;
    assert.ok(ms < regexSeconds * 1000 + marginMs, `took ${ms} ms`);
    assert.equal(value.complete, false);
    assert.match(
      value.incomplete_reason ?? "",
      new RegExp(`ran longer than ${regexSeconds} s on slow\\.txt`),
    );
    assert.match(value.incomplete_reason ?? "", /SCALPEL_REGEX_TIMEOUT/);
    await searchHello();
  });

  it("replace_content (regex): a catastrophic needle is refused at its bound and nothing changes", async () => {
    const { value, ms } = await timed(() =>
      h.call("replace_content", {
        relative_path: "slow.txt",
        needle: catastrophic,
        replacement: "b",
        mode: "regex",
      }),
    );
    assert.ok(ms < regexSeconds * 1000 + marginMs, `took ${ms} ms`);
    assert.equal(value.isError, true);
    assert.match(value.text, tooSlow("needle", " on 'slow\\.txt'"));
    assert.equal(await readFile(join(fx.dir, "slow.txt"), "utf8"), `${slowLine}\n`);
    const next = await callOk<EditResult>(h, "replace_content", {
      relative_path: "hello.txt",
      needle: "(w)orld",
      replacement: "$1ide world",
      mode: "regex",
    });
    assert.equal(next.applied, true);
    assert.equal(await readFile(join(fx.dir, "hello.txt"), "utf8"), "hello wide world\nsecond line\n");
  });

  it("edit_memory (regex): a catastrophic needle is refused at its bound and the memory is kept", async () => {
    const { value, ms } = await timed(() =>
      h.call("edit_memory", { name: "slow", needle: catastrophic, replacement: "b", mode: "regex" }),
    );
    assert.ok(ms < regexSeconds * 1000 + marginMs, `took ${ms} ms`);
    assert.equal(value.isError, true);
    assert.match(value.text, tooSlow("needle", " on memory 'slow'"));
    const memory = join(fx.dir, ".scalpel", "memories", "slow.md");
    assert.equal(await readFile(memory, "utf8"), `# Slow\n\n${slowLine}\n`);
    await callOk(h, "edit_memory", {
      name: "slow",
      needle: "^# (\\w+)",
      replacement: "# Very $1",
      mode: "regex",
    });
    assert.match(await readFile(memory, "utf8"), /^# Very Slow\n/);
  });

  it("find_file and include_glob: a backtracking glob stops at its bound", async () => {
    // picomatch turns each * into a lazy [^/]*?: this mask backtracks for minutes on the name below.
    await writeFile(join(fx.dir, `${"a".repeat(80)}.txt`), "x\n");
    const mask = "*a*a*a*a*a*a*a*a*b";
    const found = await timed(() => h.call("find_file", { file_mask: mask, relative_path: "." }));
    assert.ok(found.ms < regexSeconds * 1000 + marginMs, `find_file took ${found.ms} ms`);
    assert.match(found.value.text, tooSlow("file_mask"));
    const searched = await timed(() => h.call("search_for_pattern", { pattern: "x", include_glob: mask }));
    assert.ok(searched.ms < regexSeconds * 1000 + marginMs, `search took ${searched.ms} ms`);
    assert.match(searched.value.text, tooSlow("include_glob"));
    assert.deepEqual(await callOk(h, "find_file", { file_mask: "hello.*", relative_path: "." }), {
      files: ["hello.txt"],
    });
    await searchHello();
  });

  it("a pattern over the length limit is refused with an error that names the limit", async () => {
    const r = await h.call("search_for_pattern", { pattern: "a".repeat(10_001) });
    assert.equal(r.isError, true);
    assert.match(
      r.text,
      /^Error \(too_large\): .*limit for a regular expression is 10000 \(maximum pattern length\)/,
    );
  });

  it("a request over 10 MiB is answered with an error naming the limit, and the server goes on", async () => {
    const content = "x".repeat(10.5 * 1024 * 1024);
    const { value: error, ms } = await timed(() =>
      h.client.callTool({ name: "create_text_file", arguments: { relative_path: "huge.txt", content } }).then(
        () => undefined,
        (e: unknown) => e as Error,
      ),
    );
    assert.ok(ms < marginMs, `took ${ms} ms`);
    assert.ok(error, "the oversized request was answered as a success");
    assert.match(error.message, /Request too large: 10\.5 MiB is over scalpel's input limit of 10 MiB/);
    await searchHello();
  });

  it("a 5 MB rewrite answers within its bound with a summary, and edits of the file go on", {
    skip: scaleCase,
  }, async () => {
    const first = bigText("first");
    const created = await timed(() =>
      callOk<EditResult>(h, "create_text_file", { relative_path: "big.txt", content: first }),
    );
    assert.ok(created.ms < marginMs, `create took ${created.ms} ms`);
    assert.deepEqual(created.value.files, ["big.txt (+80000 -0)"]);

    const second = bigText("second");
    const rewritten = await timed(() =>
      callOk<EditResult>(h, "create_text_file", {
        relative_path: "big.txt",
        content: second,
        overwrite: true,
      }),
    );
    // diffMillis (2 s) is the diff's own bound; the rest is moving 5 MB twice.
    assert.ok(rewritten.ms < 2_000 + marginMs, `rewrite took ${rewritten.ms} ms`);
    assert.equal(rewritten.value.applied, true);
    assert.match(
      rewritten.value.diff ?? "",
      /\(diff too large to show: from line 1, 80000 of its 80000 lines/,
    );
    assert.equal(await readFile(join(fx.dir, "big.txt"), "utf8"), second);

    // Every line rewritten again, by a regex with groups (80,000 matches through the worker).
    const regexed = await timed(() =>
      callOk<EditResult>(h, "replace_content", {
        relative_path: "big.txt",
        needle: "x(\\d)",
        replacement: "y$1",
        mode: "regex",
        allow_multiple: true,
      }),
    );
    assert.ok(regexed.ms < 2_000 + regexSeconds * 1000 + marginMs, `regex rewrite took ${regexed.ms} ms`);
    assert.equal(await readFile(join(fx.dir, "big.txt"), "utf8"), second.replaceAll("x1", "y1"));

    // One line in the middle: an ordinary diff.
    const one = await callOk<EditResult>(h, "replace_content", {
      relative_path: "big.txt",
      needle: "line 40000 of the second text, y1",
      replacement: "line 40000 edited",
    });
    assert.match(one.diff ?? "", /^@@ -39998,7 \+39998,7 @@/m);
    await searchHello();
  });
});

describe("the tool deadline (e2e)", () => {
  let fx: TempProject;
  let h: ScalpelHandle;

  before(async () => {
    fx = await makeTempProject("scalpel-deadline-");
    await writeFile(join(fx.dir, "slow.txt"), `${slowLine}\n`);
    await writeFile(join(fx.dir, "hello.txt"), "hello world\n");
    await mkdir(join(fx.base, "home"));
    // A regex bound longer than the call's deadline: the deadline must stop the call (and its worker).
    h = await startScalpel({
      project: fx.dir,
      env: { SCALPEL_HOME: join(fx.base, "home"), SCALPEL_TOOL_TIMEOUT: "1", SCALPEL_REGEX_TIMEOUT: "600" },
    });
  });

  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  it("a call past its deadline answers deadline_exceeded, and the next calls are normal", async () => {
    for (let round = 0; round < 5; round++) {
      // Five in a row: a worker left running past the deadline would take a slot each time.
      const { value, ms } = await timed(() =>
        h.call("search_for_pattern", { pattern: catastrophic, relative_path: "slow.txt" }),
      );
      assert.ok(ms < 1_000 + marginMs, `took ${ms} ms`);
      assert.equal(value.isError, true);
      assert.match(value.text, /^Error \(deadline_exceeded\): search_for_pattern did not finish within 1 s/);
      assert.match(value.text, /SCALPEL_TOOL_TIMEOUT/);
    }
    const r = await timed(() => callOk<SearchResult>(h, "search_for_pattern", { pattern: "hello" }));
    assert.equal(searchHits(r.value).length, 1);
    assert.ok(r.ms < 5_000, `the next search took ${r.ms} ms`);
  });
});
