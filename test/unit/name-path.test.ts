import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { AppError } from "../../src/core/errors.js";
import {
  formatNamePath,
  matchesNamePath,
  type PathStep,
  parseNamePath,
} from "../../src/symbols/name-path.js";

const path = (...names: Array<string | [string, number, number]>): PathStep[] =>
  names.map((n) =>
    typeof n === "string" ? { name: n, index: 0, shared: 1 } : { name: n[0], index: n[1], shared: n[2] },
  );

describe("name paths", () => {
  test("parses relative, absolute and indexed patterns", () => {
    assert.deepEqual(parseNamePath("Money/add"), {
      absolute: false,
      segments: [{ name: "Money" }, { name: "add" }],
    });
    assert.deepEqual(parseNamePath("/Money"), { absolute: true, segments: [{ name: "Money" }] });
    assert.deepEqual(parseNamePath("parse[1]"), { absolute: false, segments: [{ name: "parse", index: 1 }] });
  });

  test("rejects empty patterns and empty segments", () => {
    for (const bad of ["", "/", "a//b", "\0"]) assert.throws(() => parseNamePath(bad), AppError);
  });

  test("a bare name matches at any depth; a path matches as a suffix", () => {
    const p = path("shop", "Money", "add");
    assert.ok(matchesNamePath(parseNamePath("add"), p));
    assert.ok(matchesNamePath(parseNamePath("Money/add"), p));
    assert.ok(!matchesNamePath(parseNamePath("Wallet/add"), p));
    assert.ok(!matchesNamePath(parseNamePath("/Money/add"), p));
    assert.ok(matchesNamePath(parseNamePath("/shop/Money/add"), p));
  });

  test("an index picks one of same-named siblings; no index matches all", () => {
    const second = path(["parse", 1, 3]);
    assert.ok(matchesNamePath(parseNamePath("parse"), second));
    assert.ok(matchesNamePath(parseNamePath("parse[1]"), second));
    assert.ok(!matchesNamePath(parseNamePath("parse[0]"), second));
  });

  test("substring matching applies to the last segment only", () => {
    const p = path("Money", "multiplyByRate");
    assert.ok(matchesNamePath(parseNamePath("Money/ByRate"), p, true));
    assert.ok(!matchesNamePath(parseNamePath("Mon/multiplyByRate"), p, true));
    assert.ok(!matchesNamePath(parseNamePath("byrate"), p, true), "case-sensitive");
  });

  test("a step's alias (a Rust impl header) matches in place of its name, exactly", () => {
    const p: PathStep[] = [
      { name: "Console", index: 0, shared: 1, alias: "impl Greeter for Console" },
      { name: "greet", index: 0, shared: 1 },
    ];
    assert.ok(matchesNamePath(parseNamePath("impl Greeter for Console/greet"), p));
    assert.ok(matchesNamePath(parseNamePath("Console/greet"), p));
    assert.ok(!matchesNamePath(parseNamePath("impl Other for Console/greet"), p));
  });

  test("formats indexes only where siblings share a name", () => {
    assert.equal(formatNamePath(path("Money", ["add", 1, 2])), "Money/add[1]");
    assert.equal(formatNamePath(path("Money", "add")), "Money/add");
  });

  test("non-ASCII names round-trip", () => {
    const p = path("Straße", "größe");
    assert.ok(matchesNamePath(parseNamePath("Straße/größe"), p));
  });
});
