// @tsserver-only scalpel's own behaviour (protocol, limits, security), not the server's: one backend is enough
/**
 * Secret files over the built CLI (fixture ts-secret: `src/vault/**` and `Makefile` declared secret
 * in .scalpel/project.yml, plus the built-in `.env*`). The secret TypeScript file uses a symbol of an
 * ordinary file, implements its interface and exports a function an ordinary file calls, so the
 * language server sends locations and edits into it. Every answer — text and structuredContent —
 * must be free of the secret files' content (a marker string they all carry); reference sites
 * there are reported by place only; a rename that would change one is refused before anything is
 * written, dry run included.
 */
import { strict as assert } from "node:assert";
import { symlink } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { lineOf } from "../helpers/anchors.js";
import { copyFixture, hashTree, readText, runTsc, type TempProject } from "../helpers/fixtures.js";
import {
  callOk,
  type OutlineFile,
  outlineSymbols,
  type ReferencesResult,
  type ScalpelHandle,
  sitesOf,
  startScalpel,
  type ToolResult,
} from "../helpers/mcp.js";

/** In every secret file of the fixture (code, comments, strings, symbol names), in no other. */
const MARKER = "VAULT_MARKER";
/** Matches the marker in a search without containing it (an echo of the pattern is no leak). */
const MARKER_REGEX = "VAULT_MARK[E]R";
const VAULT = "src/vault/keys.ts";
const SECRET_FILES = [VAULT, ".env", "Makefile"];

describe("secret files (e2e, typescript-language-server)", () => {
  let fx: TempProject;
  let h: ScalpelHandle;
  let treeBefore: Record<string, string>;
  let vaultText: string;
  const leaks: string[] = [];

  /** Records a leak of secret content in any part of the answer; returns the answer. */
  async function answer<T = Record<string, unknown>>(
    tool: string,
    args: Record<string, unknown>,
  ): Promise<ToolResult<T>> {
    const r = await h.call<T>(tool, args);
    const all = `${r.text}\n${JSON.stringify(r.structured ?? null)}`;
    if (all.includes(MARKER)) leaks.push(`${tool}(${JSON.stringify(args)}): ${all.slice(0, 400)}`);
    return r;
  }

  async function refusedAsSecret(tool: string, args: Record<string, unknown>): Promise<string> {
    const r = await answer(tool, args);
    assert.ok(r.isError, `${tool}(${JSON.stringify(args)}) was not refused: ${r.text.slice(0, 300)}`);
    assert.match(r.text, /secret_file/, `${tool}: ${r.text}`);
    assert.match(r.text, /'!.+' under 'secrets' in \.scalpel\/project\.yml/, "says how to allow it");
    return r.text;
  }

  before(async () => {
    fx = await copyFixture("ts-secret");
    // Harmless names for secret files: the gate follows them to their targets.
    await symlink("src/vault/keys.ts", join(fx.dir, "keys-alias.ts"));
    await symlink(".env", join(fx.dir, "env.txt"));
    // A directory link the compiler follows: the server may name the file by either path.
    await symlink("vault", join(fx.dir, "src", "strongbox"));
    vaultText = await readText(fx.dir, VAULT);
    treeBefore = await hashTree(fx.dir);
    h = await startScalpel({ project: fx.dir });
  });

  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  it("control: the secret files carry the marker, and the ordinary files do not", async () => {
    for (const f of SECRET_FILES) assert.ok((await readText(fx.dir, f)).includes(MARKER), f);
    for (const f of ["src/app.ts", "src/shapes.ts", "package.json"]) {
      assert.ok(!(await readText(fx.dir, f)).includes(MARKER), f);
    }
    const app = await callOk<{ content: string }>(h, "read_file", { relative_path: "src/app.ts" });
    assert.match(app.content, /vaultLabel\(\)/);
  });

  it("find_referencing_symbols: sites in the secret file by place only, ordinary sites in full", async () => {
    const r = await answer<ReferencesResult>("find_referencing_symbols", {
      name_path: "normalize",
      relative_path: "src/shapes.ts",
      context_lines: 5,
    });
    assert.ok(!r.isError, r.text);
    const refs = sitesOf(r.structured);
    const secret = refs.filter(
      (x) => x.relative_path === VAULT || x.relative_path === "src/strongbox/keys.ts",
    );
    const callLines = [
      lineOf(vaultText, "normalize(input)"),
      lineOf(vaultText, "normalize(VAULT_MARKER_KEY)"),
    ];
    for (const line of callLines) {
      assert.ok(
        secret.some((x) => x.line === line),
        `the call on line ${line} of the secret file is reported: ${r.text}`,
      );
    }
    for (const x of secret) {
      assert.equal(x.secret, true);
      assert.equal(x.code, undefined);
      assert.equal(x.container, null);
    }
    const ordinary = refs.filter((x) => x.relative_path === "src/app.ts");
    assert.ok(ordinary.length >= 2, r.text);
    for (const x of ordinary) {
      // An import site is marked and counted, not quoted (find_referencing_symbols' compact form).
      if ((x as { import?: true }).import) continue;
      assert.ok(x.code?.includes("normalize"), "an ordinary site keeps its code");
      assert.equal(x.secret, undefined);
    }
    assert.ok(
      ordinary.some((x) => x.container !== null),
      "an ordinary site keeps its containing symbol",
    );
  });

  it("find_implementations: the secret implementation by place only", async () => {
    const r = await answer<{
      implementations: OutlineFile[];
      secret_sites?: Array<{ relative_path: string; line: number }>;
    }>("find_implementations", { name_path: "Sealer", relative_path: "src/shapes.ts" });
    assert.ok(!r.isError, r.text);
    assert.deepEqual(
      outlineSymbols(r.structured.implementations).map((s) => `${s.relative_path} ${s.name_path}`),
      ["src/app.ts PlainSealer"],
    );
    const sites = (r.structured.secret_sites ?? []).map((s) => s.line);
    assert.ok(sites.includes(lineOf(vaultText, "export class")), r.text);
  });

  it("find_declaration: a declaration in the secret file is named by place only", async () => {
    const app = await readText(fx.dir, "src/app.ts");
    const r = await answer<{
      declaration: unknown;
      secret_site?: { relative_path: string; line: number };
    }>("find_declaration", {
      relative_path: "src/app.ts",
      line: lineOf(app, "ledger.add(vaultLabel())"),
      identifier: "vaultLabel",
    });
    assert.ok(!r.isError, r.text);
    assert.equal(r.structured.declaration, null);
    assert.equal(r.structured.secret_site?.relative_path, VAULT);
    assert.equal(r.structured.secret_site?.line, lineOf(vaultText, "export function vaultLabel"));
  });

  it("rename_symbol: refused before any read or write when the server's edit touches the secret file", async () => {
    const control = await callOk<{ applied: boolean; diff?: string }>(h, "rename_symbol", {
      name_path: "Ledger/add",
      relative_path: "src/shapes.ts",
      new_name: "append",
      dry_run: true,
    });
    assert.equal(control.applied, false);
    assert.match(control.diff ?? "", /append/, "control: a rename that stays in ordinary files previews");
    for (const dry_run of [true, false]) {
      const text = await refusedAsSecret("rename_symbol", {
        name_path: "normalize",
        relative_path: "src/shapes.ts",
        new_name: "canonical",
        dry_run,
      });
      assert.ok(text.includes(VAULT), `names the secret file: ${text}`);
    }
    assert.deepEqual(await hashTree(fx.dir), treeBefore, "nothing was written");
  });

  it("safe_delete_symbol lists the secret file's use by place only", async () => {
    const r = await answer("safe_delete_symbol", { name_path: "normalize", relative_path: "src/shapes.ts" });
    assert.ok(r.isError);
    assert.match(r.text, /symbol_in_use/);
    assert.ok(r.text.includes(`${VAULT}:${lineOf(vaultText, "normalize(input)")}`), r.text);
  });

  it("tools that name a secret file, directly or through a link, refuse it", async () => {
    const refusals: Array<[string, Record<string, unknown>]> = [];
    for (const p of [VAULT, ".env", "Makefile", "env.txt", "keys-alias.ts", "src/strongbox/keys.ts"]) {
      refusals.push(
        ["read_file", { relative_path: p }],
        ["search_for_pattern", { pattern: ".", relative_path: p }],
        ["get_symbols_overview", { relative_path: p, depth: 2 }],
        [
          "find_symbol",
          { name_path_pattern: "seal", substring_matching: true, relative_path: p, include_body: true },
        ],
        ["get_diagnostics_for_file", { relative_path: p }],
        ["replace_content", { relative_path: p, needle: "a", replacement: "b", allow_multiple: true }],
        ["create_text_file", { relative_path: p, content: "x\n", overwrite: true }],
      );
    }
    refusals.push(
      ["get_symbols_overview", { relative_path: "src/vault", depth: 2 }],
      ["search_for_pattern", { pattern: MARKER_REGEX, relative_path: "src/vault" }],
      ["create_text_file", { relative_path: "src/vault/new.ts", content: "export {};\n" }],
      ["find_referencing_symbols", { name_path: "vaultLabel", relative_path: VAULT }],
      ["find_implementations", { name_path: "VAULT", relative_path: VAULT }],
      [
        "replace_symbol_body",
        { name_path: "vaultLabel", relative_path: VAULT, body: "export function x() {}" },
      ],
      ["rename_symbol", { name_path: "vaultLabel", relative_path: VAULT, new_name: "y" }],
      ["find_declaration", { relative_path: VAULT, line: 2, identifier: "normalize" }],
    );
    // In parallel, as hosts call.
    await Promise.all(refusals.map(([tool, args]) => refusedAsSecret(tool, args)));
    assert.deepEqual(await hashTree(fx.dir), treeBefore, "nothing was written");
  });

  it("walks skip secret files: search, overview, find_symbol over directories", async () => {
    for (const relative_path of [".", "src"]) {
      const s = await answer<{ matches: unknown[] }>("search_for_pattern", {
        pattern: MARKER_REGEX,
        relative_path,
      });
      assert.ok(!s.isError, s.text);
      assert.deepEqual(s.structured.matches, []);
      const o = await answer<{ files: Array<{ relative_path: string }> }>("get_symbols_overview", {
        relative_path,
        depth: 3,
      });
      assert.ok(!o.isError, o.text);
      const files = o.structured.files.map((f) => f.relative_path).sort();
      assert.deepEqual(files, ["src/app.ts", "src/shapes.ts"]);
      const f = await answer<{ symbols: Array<{ relative_path: string }> }>("find_symbol", {
        name_path_pattern: "seal",
        substring_matching: true,
        include_body: true,
        depth: 2,
        relative_path: relative_path === "." ? "" : relative_path,
      });
      assert.ok(!f.isError, f.text);
      assert.ok(f.structured.symbols.length > 0, "control: ordinary files match");
      assert.ok(
        f.structured.symbols.every((x) => x.relative_path !== VAULT),
        f.text,
      );
    }
    // Control: the same search finds ordinary text, so an empty answer above is not vacuous.
    const s = await callOk<{ matches: unknown[] }>(h, "search_for_pattern", { pattern: "normaliz[e]" });
    assert.ok(s.matches.length > 0);
  });

  it("listings show secret names (never content)", async () => {
    const l = await answer<{ files: string[] }>("list_dir", { relative_path: ".", recursive: true });
    assert.ok(!l.isError, l.text);
    for (const f of [VAULT, ".env", "Makefile"]) assert.ok(l.structured.files.includes(f), f);
    const v = await answer<{ files: string[] }>("list_dir", { relative_path: "src/vault" });
    assert.deepEqual(v.structured.files, [VAULT]);
    const ff = await answer<{ files: string[] }>("find_file", { file_mask: "*" });
    assert.ok(ff.structured.files.includes(VAULT));
  });

  it("project-level answers: onboarding, instructions, diagnostics, activation", async () => {
    const o = await answer<{ instructions: string }>("onboarding", {});
    assert.ok(!o.isError, o.text);
    assert.match(o.structured.instructions, /npm run typecheck/, "control: ordinary manifests are read");
    for (const [tool, args] of [
      ["initial_instructions", {}],
      ["get_diagnostics_for_file", { relative_path: "src/app.ts" }],
      ["get_diagnostics_for_file", { relative_path: "src/shapes.ts" }],
      ["write_memory", { name: "notes", content: "# Notes\nThe vault is secret.\n" }],
      ["list_memories", {}],
      ["activate_project", { project: fx.dir }],
    ] as const) {
      const r = await answer(tool, args);
      assert.ok(!r.isError, `${tool}: ${r.text}`);
    }
  });

  it("a folder of the project activated on its own keeps the project's secret patterns", async () => {
    const sub = await answer("activate_project", { project: join(fx.dir, "src") });
    assert.ok(!sub.isError, sub.text);
    try {
      await refusedAsSecret("read_file", { relative_path: "vault/keys.ts" });
      const search = await answer<{ total?: number }>("search_for_pattern", { pattern: MARKER_REGEX });
      assert.ok(!search.isError, search.text);
      assert.doesNotMatch(search.text, /vault\/keys\.ts/, "the vault is not searched");
      // Control: the folder's ordinary files are readable.
      const app = await answer("read_file", { relative_path: "app.ts" });
      assert.ok(!app.isError, app.text);
    } finally {
      const back = await answer("activate_project", { project: fx.dir });
      assert.ok(!back.isError, back.text);
    }
  });

  it("resources: the project summary and the memories", async () => {
    const texts: string[] = [];
    const { resources } = await h.client.listResources();
    assert.ok(resources.some((r) => r.uri === "scalpel://memory/notes"));
    for (const r of resources) {
      const got = await h.client.readResource({ uri: r.uri });
      texts.push(JSON.stringify(got));
    }
    const summary = JSON.parse(
      ((await h.client.readResource({ uri: "scalpel://project/summary" })).contents[0] as { text: string })
        .text,
    ) as { build_files: string[]; commands: string[] };
    assert.ok(summary.build_files.includes("Makefile"), "a secret manifest's name is fine");
    assert.ok(summary.commands.some((c) => c.includes("npm run typecheck")));
    for (const t of texts) if (t.includes(MARKER)) leaks.push(`resource: ${t.slice(0, 300)}`);
  });

  it("no answer contained secret content, and the project is unchanged and still builds", async () => {
    assert.deepEqual(leaks, []);
    assert.deepEqual(await hashTree(fx.dir), treeBefore);
    const tsc = runTsc(fx.dir);
    assert.equal(tsc.status, 0, tsc.output);
  });
});
