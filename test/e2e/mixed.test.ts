/**
 * One activated project holding TypeScript and Rust (test/fixtures/mixed: a TS package at the root,
 * a cargo workspace member under engine/): both languages are detected, each path goes to its
 * own server, and symbol queries are answered in both.
 */
import { strict as assert } from "node:assert";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { copyFixture, type TempProject } from "../helpers/fixtures.js";
import {
  callOk,
  type FindSymbolResult,
  type ReferencesResult,
  type ScalpelHandle,
  sitesOf,
  startScalpel,
} from "../helpers/mcp.js";
import { rustAnalyzerMissing } from "../helpers/servers.js";

const skip = rustAnalyzerMissing();
if (skip) process.stdout.write(`# SKIP mixed e2e: ${skip}\n`);

interface Config {
  project: { languages: string[] } | null;
  servers: Array<{ language: string; status: string; command: string }>;
}

describe("TypeScript + Rust in one project (e2e)", { skip: skip ?? false }, () => {
  let fx: TempProject;
  let h: ScalpelHandle;

  before(async () => {
    fx = await copyFixture("mixed");
    h = await startScalpel({ project: fx.dir, env: { CARGO_TARGET_DIR: join(fx.dir, "target") } });
  });

  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  it("detects both languages", async () => {
    const c = await callOk<Config>(h, "get_current_config");
    assert.deepEqual([...(c.project?.languages ?? [])].sort(), ["rust", "typescript"]);
    assert.deepEqual(c.servers.map((s) => s.language).sort(), ["rust", "typescript"]);
  });

  it("answers find_symbol in both languages from one call", async () => {
    const r = await callOk<FindSymbolResult>(h, "find_symbol", {
      name_path_pattern: "total",
      substring_matching: false,
    });
    assert.equal(r.complete, true);
    const ts = await callOk<FindSymbolResult>(h, "find_symbol", { name_path_pattern: "Cart/total" });
    assert.deepEqual(
      ts.symbols.map((s) => `${s.relative_path} ${s.name_path} ${s.kind}`),
      ["src/cart.ts Cart/total Method"],
    );
    const rs = await callOk<FindSymbolResult>(h, "find_symbol", { name_path_pattern: "Ledger/balance" });
    assert.deepEqual(
      rs.symbols.map((s) => `${s.relative_path} ${s.name_path} ${s.kind}`),
      ["engine/src/main.rs Ledger/balance Method"],
    );
  });

  it("answers references in both languages", async () => {
    const ts = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
      name_path: "Cart/addItem",
      relative_path: "src/cart.ts",
    });
    assert.deepEqual(
      sitesOf(ts).map((r) => r.relative_path),
      ["src/main.ts"],
    );
    const rs = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
      name_path: "Ledger/record",
      relative_path: "engine/src/main.rs",
    });
    assert.equal(rs.complete, true);
    assert.deepEqual(
      sitesOf(rs).map((r) => `${r.relative_path} ${r.container}`),
      ["engine/src/main.rs main"],
    );
  });

  it("get_current_config shows both servers running", async () => {
    const c = await callOk<Config>(h, "get_current_config");
    for (const s of c.servers) assert.equal(s.status, "ready", JSON.stringify(s));
    assert.ok(c.servers.find((s) => s.language === "rust")?.command.includes("rust-analyzer"));
    assert.deepEqual(h.hostPathLeaks, []);
  });
});
