// @backends tsserver native:full
/**
 * get_call_hierarchy against the raw servers (typescript-language-server and rust-analyzer, both
 * offer callHierarchyProvider): the callers and call-site lines the tool lists are those the
 * server's callHierarchy/incomingCalls gives, with name paths from the files' symbol trees;
 * depth and max_items cut-offs are told; a library callee shows its name, never a host path.
 */
import { strict as assert } from "node:assert";
import { after, before, describe, it } from "node:test";
import type { CallHierarchyIncomingCall, CallHierarchyItem } from "vscode-languageserver-protocol";
import { rustAnalyzerAdapter } from "../../language-servers/rust-analyzer.js";
import { typescriptAdapter } from "../../language-servers/typescript.js";
import type { LanguageAdapter } from "../../src/languages/adapter.js";
import { uriToPath } from "../../src/lsp/uri.js";
import { lineOf, position } from "../helpers/anchors.js";
import { copyFixture, readText, type TempProject } from "../helpers/fixtures.js";
import { callOk, type ScalpelHandle, startScalpel } from "../helpers/mcp.js";
import { rawServer } from "../helpers/raw-server.js";
import { otherLanguageOnNativePass, rustAnalyzerMissing } from "../helpers/servers.js";

interface Call {
  relative_path?: string;
  name_path: string | null;
  line?: number;
  outside?: true;
  depth: number;
  via?: string;
  sites: number[];
}
interface CallResult {
  symbol: { name_path: string };
  incoming?: Call[];
  outgoing?: Call[];
  stopped?: string[];
  complete: boolean;
}

/** "file:line" of every call site, from the raw server's incoming calls. */
async function rawIncoming(
  adapter: LanguageAdapter,
  dir: string,
  rel: string,
  anchor: string,
): Promise<string[]> {
  const raw = await rawServer(adapter, dir);
  try {
    const params = await raw.at(rel, position(await readText(dir, rel), anchor));
    const items = await raw.session.request<CallHierarchyItem[] | null>(
      "textDocument/prepareCallHierarchy",
      params,
    );
    assert.ok(items?.[0], "the raw server prepares the item");
    const calls = await raw.session.request<CallHierarchyIncomingCall[] | null>(
      "callHierarchy/incomingCalls",
      {
        item: items[0],
      },
    );
    return (calls ?? []).flatMap((c) =>
      c.fromRanges.map((r) => `${uriToPath(c.from.uri).slice(dir.length + 1)}:${r.start.line + 1}`),
    );
  } finally {
    await raw.close();
  }
}

const toolSites = (calls: Call[]) =>
  [...new Set(calls.flatMap((c) => c.sites.map((l) => `${c.relative_path}:${l}`)))].sort();

describe("get_call_hierarchy (e2e, typescript)", () => {
  let fx: TempProject;
  let h: ScalpelHandle;

  before(async () => {
    fx = await copyFixture("ts-basic");
    h = await startScalpel({ project: fx.dir });
  });
  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  it("incoming calls are the raw server's, each with its caller's name path", async () => {
    const expected = [
      ...new Set(await rawIncoming(typescriptAdapter, fx.dir, "src/money.ts", "multiplyByRate(rate")),
    ].sort();
    const r = await callOk<CallResult>(h, "get_call_hierarchy", {
      name_path: "Money/multiplyByRate",
      relative_path: "src/money.ts",
    });
    assert.equal(r.symbol.name_path, "Money/multiplyByRate");
    assert.ok(expected.length >= 8, `the fixture calls it from many places: ${expected.join(", ")}`);
    assert.deepEqual(toolSites(r.incoming ?? []), expected);
    const money = await readText(fx.dir, "src/money.ts");
    const double = r.incoming?.find((c) => c.name_path === "Money/double");
    assert.deepEqual(double?.sites, [lineOf(money, "this.multiplyByRate(2)")]);
    assert.equal(double?.line, lineOf(money, "double(): Money"));
    const wallet = await readText(fx.dir, "src/wallet.ts");
    assert.ok(r.incoming?.some((c) => c.name_path === "Wallet/grow" && c.relative_path === "src/wallet.ts"));
    assert.ok(r.incoming?.some((c) => c.name_path === "walletTotal" && c.sites.length === 1));
    assert.ok(wallet.includes("walletTotal"));
    // One depth: the callers' own callers are not followed, and the answer says so.
    assert.ok(r.incoming?.every((c) => c.depth === 1 && c.via === undefined));
    assert.match(
      r.stopped?.join("\n") ?? "",
      /incoming: depth 1 reached; \d+ symbols at depth 1 not followed; raise depth/,
    );
  });

  it("follows callers to a depth, naming which symbol each deeper call reaches", async () => {
    const r = await callOk<CallResult>(h, "get_call_hierarchy", {
      name_path: "Money/double",
      relative_path: "src/money.ts",
      depth: 2,
    });
    const main = await readText(fx.dir, "src/main.ts");
    const direct = r.incoming?.filter((c) => c.depth === 1) ?? [];
    assert.ok(
      direct.some((c) => c.name_path === "main" && c.sites.includes(lineOf(main, "makeMoney(2).double()"))),
    );
    const deeper = r.incoming?.filter((c) => c.depth === 2) ?? [];
    // main is called by nobody in the fixture; buildReport (which calls double) is called by main.
    assert.ok(
      deeper.some((c) => c.name_path === "main" && c.via === "buildReport"),
      JSON.stringify(r.incoming),
    );
  });

  it("outgoing calls list what the symbol calls; max_items cuts and says where", async () => {
    const out = await callOk<CallResult>(h, "get_call_hierarchy", {
      name_path: "Money/double",
      relative_path: "src/money.ts",
      direction: "outgoing",
    });
    const money = await readText(fx.dir, "src/money.ts");
    assert.deepEqual(
      out.outgoing?.map((c) => [c.name_path, c.sites]),
      [["Money/multiplyByRate", [lineOf(money, "this.multiplyByRate(2)")]]],
    );
    assert.equal(out.incoming, undefined);
    const cut = await callOk<CallResult>(h, "get_call_hierarchy", {
      name_path: "Money/multiplyByRate",
      relative_path: "src/money.ts",
      max_items: 2,
    });
    assert.equal(cut.incoming?.length, 2);
    assert.match(cut.stopped?.join("\n") ?? "", /max_items=2 reached at depth 1/);
  });
});

const skipRust = rustAnalyzerMissing() ?? otherLanguageOnNativePass();
describe("get_call_hierarchy (e2e, rust-analyzer)", { skip: skipRust ?? false }, () => {
  let fx: TempProject;
  let h: ScalpelHandle;

  before(async () => {
    fx = await copyFixture("rust-basic");
    h = await startScalpel({ project: fx.dir });
  });
  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  it("incoming calls are the raw server's; a library callee shows its name only", async () => {
    const expected = [
      ...new Set(await rawIncoming(rustAnalyzerAdapter, fx.dir, "src/money.rs", "multiply_by_rate(&self")),
    ].sort();
    const r = await callOk<CallResult>(h, "get_call_hierarchy", {
      name_path: "multiply_by_rate",
      relative_path: "src/money.rs",
      direction: "both",
    });
    assert.deepEqual(toolSites(r.incoming ?? []), expected);
    // Anchored: the three calls on a Money, not the Thermometer's same-named method.
    const report = await readText(fx.dir, "src/report.rs");
    const main = await readText(fx.dir, "src/main.rs");
    const pricing = await readText(fx.dir, "src/pricing.rs");
    assert.deepEqual(expected, [
      `src/main.rs:${lineOf(main, "base.multiply_by_rate(2.0)")}`,
      `src/pricing.rs:${lineOf(pricing, "hourly.multiply_by_rate")}`,
      `src/report.rs:${lineOf(report, "total.multiply_by_rate(1.2)")}`,
    ]);
    assert.ok(r.incoming?.some((c) => c.name_path === "build_report"));
    assert.ok(
      r.incoming?.some((c) => c.name_path?.endsWith("/price") && c.relative_path === "src/pricing.rs"),
    );
    // Outgoing: Money::new in the project, f64::round in the standard library (name only).
    const money = await readText(fx.dir, "src/money.rs");
    const callNew = r.outgoing?.find((c) => c.name_path?.endsWith("new"));
    assert.equal(callNew?.relative_path, "src/money.rs");
    assert.deepEqual(callNew?.sites, [lineOf(money, "Money::new((self.cents")]);
    const round = r.outgoing?.find((c) => c.name_path === "round");
    assert.deepEqual(round, { name_path: "round", outside: true, depth: 1, sites: round?.sites });
    const text = (
      await h.call("get_call_hierarchy", {
        name_path: "multiply_by_rate",
        relative_path: "src/money.rs",
        direction: "outgoing",
      })
    ).text;
    assert.doesNotMatch(text, /rustup|\/root\/|\/home\//, "no host path of a library");
    assert.match(text, /round \(outside the project\)/);
  });
});

describe("get_call_hierarchy and get_type_info with secret files (e2e, typescript)", () => {
  let fx: TempProject;
  let h: ScalpelHandle;

  before(async () => {
    fx = await copyFixture("ts-secret");
    h = await startScalpel({ project: fx.dir });
  });
  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  it("callers in a secret file by place only, never followed; a secret file's hover is refused", async () => {
    const r = await h.call<CallResult>("get_call_hierarchy", {
      name_path: "normalize",
      relative_path: "src/shapes.ts",
      depth: 2,
    });
    assert.ok(!r.isError, r.text);
    const vault = await readText(fx.dir, "src/vault/keys.ts");
    const secret = (r.structured.incoming ?? []).filter((c) => c.relative_path === "src/vault/keys.ts");
    assert.deepEqual(
      secret.flatMap((c) => c.sites).sort(),
      [lineOf(vault, "normalize(input)"), lineOf(vault, "normalize(VAULT_MARKER_KEY)")].sort(),
    );
    for (const c of secret)
      assert.deepEqual([c.name_path, c.depth, (c as { secret?: true }).secret], [null, 1, true]);
    assert.ok(
      r.structured.incoming?.some((c) => c.relative_path === "src/app.ts"),
      "ordinary callers in full",
    );
    assert.doesNotMatch(`${r.text}\n${JSON.stringify(r.structured)}`, /VAULT_MARKER/);
    const info = await h.call("get_type_info", { relative_path: "src/vault/keys.ts", line: 9, column: 11 });
    assert.match(info.text, /^Error \(secret_file\)/);
    assert.doesNotMatch(info.text, /VAULT_MARKER/);
  });
});
