// Regular expressions in the worker keep JavaScript's semantics and their bounds; the deadline
// wrapper cancels a call's work; the stdio transport answers a line over its limit and goes on.
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { after, before, describe, test } from "node:test";
import picomatch from "picomatch";
import { withDeadline } from "../../src/core/deadlines.js";
import { isAppError } from "../../src/core/errors.js";
import { compileGlob, globMatches } from "../../src/search/glob.js";
import { findMatches } from "../../src/search/needle-matches.js";
import { RegexStopped, regexSpans } from "../../src/search/regex-worker.js";
import { requestIdOf, StdioLineTransport } from "../../src/stdio-transport.js";

const live = () => new AbortController().signal;
const where = "'f.txt'";

/** What String.prototype.replace makes of the same regex: the reference for findMatches. */
async function replaced(text: string, needle: string, replacement: string): Promise<string> {
  const found = await findMatches(text, needle, replacement, "regex", { signal: live(), where });
  let out = text;
  for (const m of [...found].sort((a, b) => b.start - a.start)) {
    out = out.slice(0, m.start) + m.newText + out.slice(m.end);
  }
  return out;
}

async function failure(work: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await work;
  } catch (e) {
    if (isAppError(e)) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error("expected an error");
}

describe("regex in the worker", () => {
  const saved = process.env.SCALPEL_REGEX_TIMEOUT;
  before(() => {
    process.env.SCALPEL_REGEX_TIMEOUT = "1";
  });
  after(() => {
    if (saved === undefined) delete process.env.SCALPEL_REGEX_TIMEOUT;
    else process.env.SCALPEL_REGEX_TIMEOUT = saved;
  });

  test("JavaScript regex features work as String.prototype.replace does them", async () => {
    const text = "const a = 'x';\nlet bb = \"y\";\nconst cc = 'z\";\nfoo(a, bb);\nünïcödé 42\n";
    const cases: Array<[string, string]> = [
      [String.raw`(?<![\w$])(a|bb)(?![\w$])`, "<$1>"], // lookbehind, lookahead
      [String.raw`(['"]).*?\1`, "[$&]"], // backreference
      [String.raw`(?<kw>const|let) (?<name>\w+)`, "$<name> is $<kw>"], // named groups
      [String.raw`\p{L}+(?= \d)`, "word"], // unicode property without the u flag is literal: no match
      [String.raw`^(\w+)`, "$1$1"], // ^ at line starts (m flag)
      [";$", ""], // $ at line ends
      ["x*", "-"], // empty matches
      ["a", "$$ $` $' $9 $12"], // special replacement patterns
    ];
    for (const [needle, replacement] of cases) {
      assert.equal(
        await replaced(text, needle, replacement),
        text.replace(new RegExp(needle, "gm"), replacement),
        needle,
      );
    }
  });

  test("a catastrophic pattern is stopped at its bound with pattern_too_slow", async () => {
    const started = Date.now();
    const e = await failure(
      findMatches(`${"a".repeat(100_000)}!`, "(a+)+$", "b", "regex", { signal: live(), where }),
    );
    assert.ok(Date.now() - started < 1_000 + 10_000, `took ${Date.now() - started} ms`);
    assert.equal(e.code, "pattern_too_slow");
    assert.match(
      e.message,
      /^The needle ran longer than 1 s on 'f\.txt' and was stopped; nothing was changed\./,
    );
    // The pool goes on with a new worker.
    assert.equal(await replaced("abc", "b", "B"), "aBc");
  });

  test("an aborted call stops its regex at once", async () => {
    const controller = new AbortController();
    const started = Date.now();
    const run = findMatches(`${"a".repeat(100_000)}!`, "(a+)+$", "b", "regex", {
      signal: controller.signal,
      where,
    });
    setTimeout(() => controller.abort(), 100);
    const e = await failure(run);
    assert.equal(e.code, "deadline_exceeded");
    assert.ok(
      Date.now() - started < 900,
      `took ${Date.now() - started} ms: the timeout, not the abort, ended it`,
    );
  });

  test("with every worker busy, a call waits at most its bound, and the pool recovers", async () => {
    const slow = /(a+)+$/gm;
    const text = `${"a".repeat(100_000)}!`;
    const busy = Array.from({ length: 4 }, () =>
      regexSpans(slow, [text], { timeoutMs: 2_000, signal: live() }).then(
        () => "done",
        (e: unknown) => (e instanceof RegexStopped ? e.why : String(e)),
      ),
    );
    const started = Date.now();
    await assert.rejects(regexSpans(/a/gm, ["a"], { timeoutMs: 300, signal: live() }), (e: unknown) => {
      return e instanceof RegexStopped && e.why === "busy";
    });
    assert.ok(Date.now() - started < 1_900, `waited ${Date.now() - started} ms`);
    assert.deepEqual(await Promise.all(busy), ["timeout", "timeout", "timeout", "timeout"]);
    const [spans] = await regexSpans(/b/gm, ["abcb"], { timeoutMs: 5_000, signal: live() });
    assert.deepEqual([...(spans ?? [])], [1, 1, 3, 1]);
  });

  test("input limits: pattern length, matches per call, size of the result", async () => {
    const long = await failure(findMatches("x", "x".repeat(10_001), "", "regex", { signal: live(), where }));
    assert.equal(long.code, "too_large");
    assert.match(long.message, /limit for a regular expression is 10000 \(maximum pattern length\)/);
    const many = await failure(
      findMatches("a".repeat(100_001), "a", "b", "literal", { signal: live(), where }),
    );
    assert.equal(many.code, "too_large");
    assert.match(many.message, /the limit is 100000 replacements per call \(maximum matches\)/);
    const grown = await failure(
      findMatches("ab".repeat(1000), "a", "$&".repeat(20_000), "regex", { signal: live(), where }),
    );
    assert.equal(grown.code, "too_large");
    assert.match(grown.message, /over 16 MiB, the limit for a text file/);
  });
});

describe("globs in the worker", () => {
  const saved = process.env.SCALPEL_REGEX_TIMEOUT;
  after(() => {
    if (saved === undefined) delete process.env.SCALPEL_REGEX_TIMEOUT;
    else process.env.SCALPEL_REGEX_TIMEOUT = saved;
  });

  test("a glob matches as picomatch matches it (base name without '/', path with it)", async () => {
    const rels = ["a.ts", "src/a.ts", "src/x/index.ts", "config.yml", "README.md", ".env.local", "src/b.tsx"];
    for (const glob of [
      "*.ts",
      "**/*.ts",
      "src/**/index.ts",
      "config.{yml,yaml}",
      "README*",
      "!*.ts",
      ".env*",
      "*.{ts,tsx}",
    ]) {
      const expected = rels.map((rel) =>
        picomatch(glob, { dot: true })(glob.includes("/") ? rel : rel.slice(rel.lastIndexOf("/") + 1)),
      );
      assert.deepEqual(await globMatches(compileGlob(glob, "file_mask"), rels, live()), expected, glob);
    }
  });

  test("a backtracking glob is stopped at its bound", async () => {
    process.env.SCALPEL_REGEX_TIMEOUT = "1";
    const started = Date.now();
    const e = await failure(
      globMatches(compileGlob("*a*a*a*a*a*a*a*a*b", "file_mask"), ["a".repeat(80)], live()),
    );
    assert.ok(Date.now() - started < 1_000 + 10_000, `took ${Date.now() - started} ms`);
    assert.equal(e.code, "pattern_too_slow");
    assert.match(e.message, /^The file_mask ran longer than 1 s/);
  });
});

describe("tool deadline", () => {
  const saved = process.env.SCALPEL_TOOL_TIMEOUT;
  after(() => {
    if (saved === undefined) delete process.env.SCALPEL_TOOL_TIMEOUT;
    else process.env.SCALPEL_TOOL_TIMEOUT = saved;
  });

  test("past the deadline the call answers deadline_exceeded and its signal is aborted", async () => {
    process.env.SCALPEL_TOOL_TIMEOUT = "0.2";
    let seen: AbortSignal | undefined;
    const started = Date.now();
    const e = await failure(
      withDeadline({ name: "slow_tool", annotations: { readOnlyHint: true } }, undefined, (signal) => {
        seen = signal;
        return new Promise(() => {});
      }),
    );
    assert.equal(e.code, "deadline_exceeded");
    assert.match(
      e.message,
      /^slow_tool did not finish within 0\.2 s \(its deadline; SCALPEL_TOOL_TIMEOUT sets it/,
    );
    assert.ok(Date.now() - started < 5_000);
    assert.equal(seen?.aborted, true);
  });

  test("a call within its deadline answers, and the caller's cancel reaches the work", async () => {
    delete process.env.SCALPEL_TOOL_TIMEOUT;
    const tool = { name: "t", annotations: { readOnlyHint: false } };
    assert.equal(await withDeadline(tool, undefined, async () => 42), 42);
    const outer = new AbortController();
    let inner: AbortSignal | undefined;
    await withDeadline(tool, outer.signal, async (signal) => {
      inner = signal;
    });
    outer.abort();
    assert.equal(inner?.aborted, true);
  });
});

describe("stdio transport", () => {
  test("the request id is found at either end of a line seen only by its ends", () => {
    assert.equal(requestIdOf('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{', ""), 7);
    assert.equal(requestIdOf('{"id":"a\\"b","jsonrpc"', ""), 'a"b');
    assert.equal(
      requestIdOf('{"method":"tools/call","params":{"x":"', 'xxx"}},"jsonrpc":"2.0","id":12}'),
      12,
    );
    // An id inside the params is not the request's.
    assert.equal(requestIdOf('{"method":"x","params":{"a":"', 'a","id":3}}'), undefined);
    assert.equal(requestIdOf('{"method":"notifications/x","params":{"a":"', 'a"}}'), undefined);
  });

  test("a line over the limit is answered with an error and the next line is read", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const warnings: string[] = [];
    const transport = new StdioLineTransport<Record<string, unknown>>(
      (line) => JSON.parse(line) as Record<string, unknown>,
      { maxLineBytes: 1000, warn: (m) => warnings.push(m) },
      stdin,
      stdout,
    );
    const received: Array<Record<string, unknown>> = [];
    transport.onmessage = (m) => received.push(m);
    await transport.start();
    const big = JSON.stringify({
      method: "tools/call",
      params: { content: "x".repeat(5000) },
      jsonrpc: "2.0",
      id: 4,
    });
    // Split across chunks, the big line with the small one after it in the same chunk.
    stdin.write(big.slice(0, 700));
    stdin.write(big.slice(700, 3000));
    stdin.write(`${big.slice(3000)}\n{"jsonrpc":"2.0","id":5,"method":"ping"}\n`);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(received, [{ jsonrpc: "2.0", id: 5, method: "ping" }]);
    const answer = JSON.parse(String(stdout.read())) as {
      id: number;
      error: { code: number; message: string };
    };
    assert.equal(answer.id, 4);
    assert.equal(answer.error.code, -32600);
    assert.match(answer.error.message, /^Request too large: 0 MiB is over scalpel's input limit of 0 MiB/);
    assert.equal(warnings.length, 1);
    await transport.close();
  });
});
