// @backends tsserver native:full
/**
 * Deltas that see the whole change, end to end over the built CLI with real servers: a body
 * replacement that breaks a caller in another file reports the caller's error, also when the
 * edited file has 5,000 lines (generated here). Rust's counterpart is whole-delta-rust.test.ts.
 */
import { strict as assert } from "node:assert";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { lineOf } from "../helpers/anchors.js";
import { makeTempProject, readText, type TempProject, writeTsconfig } from "../helpers/fixtures.js";
import {
  callOk,
  type EditResult,
  parseDiagnostics,
  type ScalpelHandle,
  startScalpel,
} from "../helpers/mcp.js";

/** A 5,000-line module: `price` near the top, filler, and a use of `price` at the end. */
function bigModule(lines = 5000): string {
  const out = ["export function price(): number {", "  return 1;", "}", ""];
  for (let i = 0; out.length < lines - 2; i++) {
    out.push(`export function filler${i}(v: number): number {`, `  return v * ${i} + 1;`, "}", "");
  }
  out.push("export const lastUse: number = price();", "");
  return out.join("\n");
}

const caller = 'import { price } from "./lib";\n\nexport const total: number = price() + 1;\n';

/** The new `price`: returns a string (breaks every caller) and reads a missing property (TS2339). */
const brokenPrice = 'export function price(): string {\n  const box = { a: "1" };\n  return box.b;\n}';

function codes(lines: readonly string[], file: string): string[] {
  return parseDiagnostics(lines)
    .filter((d) => d.relative_path === file)
    .map((d) => String(d.code))
    .sort();
}

describe("diagnostics_delta: callers in other files (e2e, tsserver)", () => {
  let tmp: TempProject;
  let h: ScalpelHandle;

  before(async () => {
    tmp = await makeTempProject("scalpel-delta-");
    await mkdir(join(tmp.dir, "src"));
    await writeTsconfig(tmp.dir);
    await writeFile(join(tmp.dir, "src", "lib.ts"), "export function price(): number {\n  return 1;\n}\n");
    await writeFile(join(tmp.dir, "src", "caller.ts"), caller);
    await mkdir(join(tmp.dir, "big"));
    await mkdir(join(tmp.dir, "big", "src"));
    await writeTsconfig(join(tmp.dir, "big"));
    await writeFile(join(tmp.dir, "big", "src", "lib.ts"), bigModule());
    await writeFile(join(tmp.dir, "big", "src", "caller.ts"), caller);
    h = await startScalpel({ project: tmp.dir });
  });

  after(async () => {
    await h?.close();
    await tmp?.cleanup();
  });

  it("a body replacement that breaks a caller in another (never opened) file reports the caller's error", async () => {
    const r = await callOk<EditResult>(h, "replace_symbol_body", {
      name_path: "price",
      relative_path: "src/lib.ts",
      body: brokenPrice,
    });
    const delta = r.diagnostics_delta;
    assert.ok(delta, `no delta: ${JSON.stringify(r)}`);
    assert.deepEqual(codes(delta.new, "src/lib.ts"), ["2339"], JSON.stringify(delta));
    assert.deepEqual(codes(delta.new, "src/caller.ts"), ["2322"], JSON.stringify(delta));
    // Compared: the edited file and its caller (those with findings are named in new).
    assert.ok((delta.checked_count ?? 0) >= 2, JSON.stringify(delta));
    assert.equal(delta.complete, true, delta.incomplete_reason);
    assert.equal(delta.resolved.length, 0);
  });

  it("the same on a generated 5,000-line file: its own error and its caller's", async () => {
    const text = await readText(tmp.dir, "big/src/lib.ts");
    assert.ok(text.split("\n").length >= 5000);
    const r = await callOk<EditResult>(h, "replace_symbol_body", {
      name_path: "price",
      relative_path: "big/src/lib.ts",
      body: brokenPrice,
    });
    const delta = r.diagnostics_delta;
    assert.ok(delta, `no delta: ${JSON.stringify(r).slice(0, 2000)}`);
    const own = parseDiagnostics(delta.new).filter((d) => d.relative_path === "big/src/lib.ts");
    assert.ok(
      own.some((d) => String(d.code) === "2339" && d.line === 3),
      `the big file's own TS2339: ${JSON.stringify(own.slice(0, 5))}`,
    );
    // `lastUse: number = price()` at the end of the big file now gets a string.
    const last = lineOf(await readText(tmp.dir, "big/src/lib.ts"), "export const lastUse");
    assert.ok(
      own.some((d) => String(d.code) === "2322" && d.line === last),
      `the big file's last use: ${JSON.stringify(own.slice(0, 5))}`,
    );
    assert.equal(own.length, 2, JSON.stringify(own));
    assert.deepEqual(codes(delta.new, "big/src/caller.ts"), ["2322"], JSON.stringify(delta).slice(0, 2000));
    assert.equal(delta.complete, true, delta.incomplete_reason);
  });
});
