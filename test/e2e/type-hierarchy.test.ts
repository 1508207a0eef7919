// @tsserver-only compared against each raw server it names, tsserver for TypeScript
/**
 * get_type_hierarchy against the raw servers: where a server offers type hierarchies the tool
 * gives its supertypes and subtypes, where it does not (measured: typescript-language-server
 * 5.x, rust-analyzer and pyright declare no typeHierarchyProvider) the tool answers
 * `not_supported` naming the server, never an empty list.
 */
import { strict as assert } from "node:assert";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { rustAnalyzerAdapter } from "../../language-servers/rust-analyzer.js";
import { typescriptAdapter } from "../../language-servers/typescript.js";
import type { LanguageAdapter } from "../../src/languages/adapter.js";
import { position } from "../helpers/anchors.js";
import { copyFixture, readText, repoRoot, type TempProject } from "../helpers/fixtures.js";
import { callOk, type ScalpelHandle, startScalpel } from "../helpers/mcp.js";
import { rawServer } from "../helpers/raw-server.js";
import { rustAnalyzerMissing } from "../helpers/servers.js";

interface TypeEntry {
  relative_path?: string;
  name_path: string | null;
  line?: number;
  depth: number;
}
interface HierarchyResult {
  symbol: { name_path: string };
  supertypes?: TypeEntry[];
  subtypes?: TypeEntry[];
  complete: boolean;
}

const cases: Array<{
  fixture: string;
  adapter: LanguageAdapter;
  skip?: string | undefined;
  file: string;
  base: string;
  anchor: string;
  sub: { file: string; name: string; anchor: string };
  serverName: RegExp;
}> = [
  {
    fixture: "ts-basic",
    adapter: typescriptAdapter,
    file: "src/shapes.ts",
    base: "Shape",
    anchor: "Shape {",
    sub: { file: "src/shapes.ts", name: "Circle", anchor: "Circle implements" },
    serverName: /typescript/i,
  },
  {
    fixture: "rust-basic",
    adapter: rustAnalyzerAdapter,
    skip: rustAnalyzerMissing(),
    file: "src/pricing.rs",
    base: "Priced",
    anchor: "Priced {",
    sub: { file: "src/pricing.rs", name: "Item", anchor: "Item {" },
    serverName: /rust-analyzer/,
  },
];

for (const c of cases) {
  describe(`get_type_hierarchy (e2e, ${c.adapter.id})`, { skip: c.skip ?? false }, () => {
    let fx: TempProject;
    let h: ScalpelHandle;

    before(async () => {
      fx = await copyFixture(c.fixture);
      h = await startScalpel({ project: fx.dir });
    });
    after(async () => {
      await h?.close();
      await fx?.cleanup();
    });

    it("answers what the raw server answers, or says the server does not support it", async () => {
      const raw = await rawServer(c.adapter, fx.dir);
      try {
        const offered = raw.session.capabilities.typeHierarchyProvider;
        const r = await h.call<HierarchyResult>("get_type_hierarchy", {
          name_path: c.base,
          relative_path: c.file,
        });
        if (!offered) {
          assert.equal(r.isError, true, r.text);
          assert.match(r.text, /^Error \(not_supported\): get_type_hierarchy is not supported by /);
          assert.match(r.text, c.serverName);
          assert.match(r.text, /find_implementations/, "says what to use instead");
          return;
        }
        // The server offers it: the tool's subtypes are the raw server's.
        const text = await readText(fx.dir, c.file);
        const params = await raw.at(c.file, position(text, c.anchor));
        const items =
          (await raw.session.request<unknown[]>("textDocument/prepareTypeHierarchy", params)) ?? [];
        const subs = await raw.session.request<Array<{ name: string }>>("typeHierarchy/subtypes", {
          item: items[0],
        });
        assert.ok(!r.isError, r.text);
        const names = (r.structured.subtypes ?? []).map((t) => t.name_path?.split("/").at(-1));
        assert.deepEqual(names.sort(), (subs ?? []).map((s) => s.name).sort());
        assert.ok(names.includes(c.sub.name));
      } finally {
        await raw.close();
      }
    });
  });
}

const pyright = join(repoRoot, "node_modules", ".bin", "pyright-langserver");

describe("get_type_hierarchy / get_type_info on a declared custom server (e2e, pyright)", () => {
  let fx: TempProject;
  let h: ScalpelHandle;

  before(async () => {
    assert.ok(existsSync(pyright), "pyright is a devDependency: run npm install");
    fx = await copyFixture("python-custom");
    await mkdir(join(fx.dir, ".scalpel"), { recursive: true });
    await writeFile(
      join(fx.dir, ".scalpel", "project.yml"),
      [
        "language_servers:",
        "  python:",
        `    command: ${JSON.stringify(pyright)}`,
        '    args: ["--stdio"]',
        '    extensions: [".py"]',
        "",
      ].join("\n"),
    );
    h = await startScalpel({ project: fx.dir });
  });
  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  it("a server without type hierarchy gets a clear not_supported answer naming it", async () => {
    const r = await h.call("get_type_hierarchy", { name_path: "Circle", relative_path: "app/shapes.py" });
    assert.equal(r.isError, true, r.text);
    assert.match(
      r.text,
      /^Error \(not_supported\): get_type_hierarchy is not supported by the python language server: /,
    );
    assert.match(r.text, /typeHierarchyProvider/);
  });

  it("a server without implementations gets not_supported naming it, not an internal error", async () => {
    // pyright 1.1.414 announces no implementationProvider and fails the request as an unhandled method.
    const r = await h.call("find_implementations", { name_path: "Circle", relative_path: "app/shapes.py" });
    assert.equal(r.isError, true, r.text);
    assert.match(
      r.text,
      /^Error \(not_supported\): find_implementations is not supported by the python language server: /,
    );
    assert.match(r.text, /find_referencing_symbols/);
  });

  it("a capability the custom server has is used: hover", async () => {
    const info = await callOk<{ type_info: string }>(h, "get_type_info", {
      name_path: "Circle/area",
      relative_path: "app/shapes.py",
    });
    assert.match(info.type_info, /def area\(self: Self@Circle\) -> float/);
    assert.doesNotMatch(info.type_info, /```/);
  });
});
