// @tsserver-only the gate is scalpel's (one place in the tool runner), not the server's: one backend is enough
/**
 * The one output gate for secrets (#18, acceptance 3): a value from a secret file's text reaches no
 * answer, whatever carries it out — tsserver's hover of `const k = API_KEY` in an ordinary file
 * (the literal type), a diagnostic quoting that type, a reference snippet or a rename's diff of an
 * ordinary file that repeats it, a search hit on a copy of a `.env` value. Each is searched for in
 * the text and in the structured content; each answer must still say something where it stood.
 */
import { strict as assert } from "node:assert";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { makeTempProject, type TempProject } from "../helpers/fixtures.js";
import { type ScalpelHandle, startScalpel } from "../helpers/mcp.js";

const KEY = "sk_live_GATEMARK_4eC39HqLyjWDarjtT1zdp7dc";
const ENV_VALUE = "pg_pass_ENVMARK_77f3Q";
const markers = [KEY, ENV_VALUE, "GATEMARK", "ENVMARK"];

describe("the secret gate (e2e, typescript-language-server)", () => {
  let fx: TempProject;
  let h: ScalpelHandle;

  before(async () => {
    fx = await makeTempProject("scalpel-secret-gate-");
    const put = async (rel: string, text: string) => {
      await mkdir(join(fx.dir, rel, ".."), { recursive: true });
      await writeFile(join(fx.dir, rel), text);
    };
    await put(".scalpel/project.yml", "secrets:\n  - src/vault.ts\n");
    await put(".gitignore", ".env\n");
    await put(".env", `DATABASE_PASSWORD=${ENV_VALUE}\nNODE_ENV=development\n`);
    await put(
      "tsconfig.json",
      '{ "compilerOptions": { "strict": true, "noEmit": true }, "include": ["src"] }\n',
    );
    await put("src/vault.ts", `export const API_KEY = "${KEY}";\n`);
    await put(
      "src/use.ts",
      [
        'import { API_KEY } from "./vault";',
        "",
        "export const k = API_KEY;",
        'export const wrong: "other" = API_KEY;',
        `export const legacy = k === "${KEY}";`,
        "",
      ].join("\n"),
    );
    await put("notes.md", `The staging database password used to be ${ENV_VALUE} (rotated).\n`);
    h = await startScalpel({ project: fx.dir });
  });

  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  /** The answer of a call, with no marker in either form; both forms returned for more checks. */
  async function gated(tool: string, args: Record<string, unknown>): Promise<string> {
    const r = await h.call(tool, args);
    const all = `${r.text}\n${JSON.stringify(r.structured ?? null)}`;
    for (const m of markers) assert.ok(!all.includes(m), `${tool} leaks '${m}': ${all.slice(0, 600)}`);
    return all;
  }

  it("get_type_info: the literal type of a secret constant is not shown", async () => {
    const all = await gated("get_type_info", { relative_path: "src/use.ts", name_path: "k" });
    assert.match(all, /const k: "\[secret\]"/, all);
  });

  it("diagnostics: the error quoting the literal type is reported, its value replaced", async () => {
    const all = await gated("get_diagnostics_for_file", { relative_path: "src/use.ts" });
    assert.match(all, /\[secret\]/, all);
    assert.match(all, /Type '\\?"\[secret\]\\?"' is not assignable to type '\\?"other\\?"'/, all);
  });

  it("references: a snippet of an ordinary file that repeats the value", async () => {
    const refs = await gated("find_referencing_symbols", { relative_path: "src/use.ts", name_path: "k" });
    assert.match(refs, /legacy = k === \\?"\[secret\]\\?"/, refs);
  });

  it("diffs: a rename's dry run of the line that repeats the value", async () => {
    const all = await gated("rename_symbol", {
      relative_path: "src/use.ts",
      name_path: "legacy",
      new_name: "oldKeyInUse",
      dry_run: true,
    });
    assert.match(all, /\+export const oldKeyInUse = k === \\?"\[secret\]\\?"/, all);
  });

  it("search: a copy of a git-ignored .env value in an ordinary file", async () => {
    const all = await gated("search_for_pattern", { pattern: "staging database" });
    assert.match(all, /password used to be \[secret\]/, all);
  });

  it("an edit that would write the placeholder over the value is refused, and nothing is written", async () => {
    const before = await readFile(join(fx.dir, "src", "use.ts"), "utf8");
    // What an agent would send after reading the body it was shown.
    const r = await h.call("replace_symbol_body", {
      relative_path: "src/use.ts",
      name_path: "legacy",
      body: 'export const legacy = k === "[secret]" || k === "";',
    });
    assert.equal(r.isError, true, r.text);
    assert.match(r.text, /invalid_argument.*\[secret\].*Nothing was written/s);
    assert.equal(await readFile(join(fx.dir, "src", "use.ts"), "utf8"), before, "the file is unchanged");
    assert.ok(before.includes(KEY), "the real value is still there");
  });

  it("control: ordinary words of the .env file are not hidden", async () => {
    await writeFile(join(fx.dir, "src", "mode.ts"), 'export const mode = "development";\n');
    const all = await gated("search_for_pattern", { pattern: "development" });
    assert.match(all, /mode = \\?"development\\?"/, all);
  });
});
