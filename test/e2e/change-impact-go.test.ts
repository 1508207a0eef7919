/**
 * get_change_impact on Go with a real gopls (test/fixtures/go-impact, the TypeScript fixture's
 * change in Go): a signature change with three callers outside the change (one of them a test) and
 * one updated inside it, a removed function still called, an interface that gained a method (its
 * two implementations, one of which no longer satisfies it and is found from the base side: gopls
 * lists only types that satisfy the interface now), a renamed function, a new package, a deleted
 * file whose function is still called, body changes.
 * Skipped, with the reason printed, when gopls is not installed.
 */
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { lineOf } from "../helpers/anchors.js";
import { affectedOf, changeRepo, errorsOf, type ChangeImpact as Impact } from "../helpers/change-repo.js";
import type { TempProject } from "../helpers/fixtures.js";
import { callOk, type ScalpelHandle, sitesOf, startScalpel } from "../helpers/mcp.js";
import { goplsMissing } from "../helpers/servers.js";

const skip = goplsMissing();
if (skip) process.stdout.write(`# SKIP go change impact e2e: ${skip}\n`);

describe("get_change_impact (e2e, gopls)", { skip: skip ?? false }, () => {
  let fx: TempProject;
  let h: ScalpelHandle;
  let impact: Impact;
  const work = (rel: string) => readFileSync(join(fx.dir, rel), "utf8");

  before(async () => {
    fx = await changeRepo("go-impact", ["greet/legacy.go"]);
    h = await startScalpel({ project: fx.dir });
    impact = await callOk<Impact>(h, "get_change_impact", { base: "HEAD" });
  });
  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  const symbolsOf = (rel: string) =>
    impact.changed
      .find((f) => f.relative_path === rel)
      ?.symbols.map((s) => `${s.name_path} ${s.change}${s.from ? ` from ${s.from}` : ""}`) ?? [];
  const affected = (name: string) => affectedOf(impact, name);
  const errorsIn = (rel: string) => errorsOf(impact, rel);

  it("the changed files and symbols: signature, removed, body, renamed, added", () => {
    assert.deepEqual(
      impact.changed.map((f) => `${f.relative_path} ${f.status}`),
      [
        "app/app.go modified",
        "app/banner.go modified",
        "extra/extra.go added",
        "greet/greet.go modified",
        "greet/legacy.go deleted",
        "shapes/shape.go modified",
      ],
    );
    assert.deepEqual(symbolsOf("greet/greet.go"), [
      "Greet signature",
      "Farewell removed",
      "Shout body",
      "TwicePlusOne renamed from OldName",
    ]);
    assert.deepEqual(symbolsOf("shapes/shape.go").sort(), [
      "Shape/Perimeter added",
      "Square/Perimeter added",
    ]);
    assert.deepEqual(symbolsOf("extra/extra.go"), ["Extra added"]);
    assert.equal(impact.complete, true, impact.incomplete_reason);
  });

  it("the signature change's three callers outside the change, the test among them; the updated one not", () => {
    const greet = affected("Greet");
    assert.equal(greet.reason, "signature");
    assert.deepEqual(
      sitesOf(greet).map((s) => `${s.relative_path}:${s.line} ${s.container}`),
      [
        `app/app.go:${lineOf(work("app/app.go"), 'Greet("ann")')} Welcome`,
        `app/app.go:${lineOf(work("app/app.go"), 'Greet("bob")')} WelcomeBack`,
        `greet/greet_test.go:${lineOf(work("greet/greet_test.go"), 'Greet("test")')} TestGreet`,
      ],
    );
    assert.deepEqual(greet.tests, ["greet/greet_test.go"]);
    assert.deepEqual(
      errorsIn("app/app.go")
        .filter((d) => d.code === "WrongArgCount")
        .map((d) => d.line),
      [lineOf(work("app/app.go"), 'Greet("ann")'), lineOf(work("app/app.go"), 'Greet("bob")')],
    );
    assert.deepEqual(errorsIn("app/banner.go"), []);
  });

  it("the removed function's caller, with the compile error beside it", () => {
    const farewell = affected("Farewell");
    assert.equal(farewell.reason, "removed");
    const line = lineOf(work("app/app.go"), 'Farewell("dan")');
    assert.deepEqual(
      sitesOf(farewell).map((s) => `${s.relative_path}:${s.line} ${s.container}`),
      [`app/app.go:${line} Leave`],
    );
    assert.ok(errorsIn("app/app.go").some((d) => d.line === line && /Farewell/.test(d.message)));
  });

  it("a deleted file: its function (the base text shown to gopls at its old path) and its caller left behind", () => {
    assert.deepEqual(symbolsOf("greet/legacy.go"), ["LegacyTotal removed"]);
    const legacy = affected("LegacyTotal");
    const line = lineOf(work("app/report.go"), "LegacyTotal(");
    assert.deepEqual(
      sitesOf(legacy).map((s) => `${s.relative_path}:${s.line} ${s.container}`),
      [`app/report.go:${line} Report`],
    );
    assert.ok(errorsIn("app/report.go").some((d) => d.line === line && /LegacyTotal/.test(d.message)));
  });

  it("the interface that gained a method: both implementations, the one that no longer satisfies it failing", () => {
    const shape = affected("Shape");
    assert.equal(shape.reason, "member_added");
    const impls = (shape.implementations ?? [])
      .map((f) =>
        f
          .split("\n")
          .slice(0, 2)
          .join(" ")
          .replace(/ \d+(-\d+)?$/, ""),
      )
      .sort();
    assert.deepEqual(impls, ["shapes/circle.go Circle [Struct]", "shapes/shape.go Square [Struct]"]);
    assert.ok(errorsIn("shapes/circle.go").some((d) => /missing method Perimeter/.test(d.message)));
    assert.equal(affected("OldName").sites, 0);
    assert.deepEqual(impact.affected.map((a) => a.name_path).sort(), [
      "Farewell",
      "Greet",
      "LegacyTotal",
      "OldName",
      "Shape",
    ]);
  });
});
