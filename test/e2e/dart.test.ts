/**
 * The Dart analysis server end to end. Runs when `dart` (or `flutter`) is on PATH; otherwise every
 * test is skipped with the reason, since the Dart SDK cannot be installed by this repository.
 */
import { strict as assert } from "node:assert";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { makeTempProject, type TempProject } from "../helpers/fixtures.js";
import {
  callOk,
  type FindSymbolResult,
  type ReferencesResult,
  type ScalpelHandle,
  sitesOf,
  startScalpel,
} from "../helpers/mcp.js";
import { dartMissing } from "../helpers/servers.js";

const skip = dartMissing();
if (skip) process.stdout.write(`# SKIP dart e2e: ${skip}\n`);

describe("Dart (e2e, dart language-server)", { skip: skip ?? false }, () => {
  let fx: TempProject;
  let h: ScalpelHandle;

  before(async () => {
    fx = await makeTempProject("scalpel-dart-");
    await writeFile(join(fx.dir, "pubspec.yaml"), "name: shop\nenvironment:\n  sdk: '>=3.0.0 <4.0.0'\n");
    await mkdir(join(fx.dir, "lib"));
    await writeFile(
      join(fx.dir, "lib", "money.dart"),
      "class Money {\n  final int cents;\n  Money(this.cents);\n  Money.zero() : cents = 0;\n  Money times(double rate) => Money((cents * rate).round());\n}\n\nMoney doubled(Money m) => m.times(2);\n",
    );
    h = await startScalpel({ project: fx.dir });
  });

  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  it("find_symbol addresses members without their type qualifier", async () => {
    const r = await callOk<FindSymbolResult>(h, "find_symbol", { name_path_pattern: "Money/times" });
    assert.deepEqual(
      r.symbols.map((s) => `${s.relative_path} ${s.name_path}`),
      ["lib/money.dart Money/times"],
    );
    const z = await callOk<FindSymbolResult>(h, "find_symbol", { name_path_pattern: "Money/zero" });
    assert.equal(z.symbols.length, 1);
  });

  it("find_referencing_symbols finds the call with its containing function", async () => {
    const r = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
      name_path: "Money/times",
      relative_path: "lib/money.dart",
    });
    assert.equal(r.complete, true);
    assert.deepEqual(
      sitesOf(r).map((x) => x.container),
      ["doubled"],
    );
  });
});
