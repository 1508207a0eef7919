// @backends tsserver native:full
// @via daemon:full
/**
 * Which project answered, over the built CLI on ts-projects: a tsconfig that includes src/ only,
 * a test/ and a scripts/ folder outside every tsconfig, and a sub-package with its own tsconfig.
 * tsserver answers references from whatever projects it has loaded, and opening a file outside
 * every tsconfig adds an inferred project holding it; so the same references query must give the
 * same answer in a fresh server and in one where other files were opened first (in two orders),
 * and say which project each site came from. Diagnostics name the tsconfig that checked the file,
 * or say that a file is in none.
 */
import { strict as assert } from "node:assert";
import { mkdir, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { copyFixture, readText, siteKeys, type TempProject } from "../helpers/fixtures.js";
import {
  call,
  callOk,
  type Diagnostic,
  editedFiles,
  filesOf,
  type ReferenceFile,
  type ScalpelHandle,
  serveFixture,
  sitesOf,
  startScalpel,
  stopServing,
} from "../helpers/mcp.js";
import { otherLanguageOnNativePass, rustAnalyzerMissing } from "../helpers/servers.js";

interface RefsResult {
  files: ReferenceFile[];
  project?: string | null;
  project_note?: string;
  complete: boolean;
  incomplete_reason?: string;
}

interface DiagResult {
  relative_path: string;
  diagnostics: Diagnostic[];
  project?: string | null;
  project_note?: string;
  complete: boolean;
}

const query = { name_path: "HttpError", relative_path: "src/errors.ts", context_lines: 0 };

async function tsFiles(dir: string, rel = ""): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(join(dir, rel), { withFileTypes: true })) {
    const child = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...(await tsFiles(dir, child)));
    else if (e.name.endsWith(".ts")) out.push(child);
  }
  return out.sort();
}

/**
 * Every whole-word `HttpError` in the fixture's .ts files except the declaration: in these files
 * each one is a use of the class (imports, `new`, `instanceof`, a type predicate).
 */
async function expectedSites(dir: string): Promise<string[]> {
  const sites: Array<{ relative_path: string; line: number; column: number }> = [];
  for (const rel of await tsFiles(dir)) {
    const lines = (await readText(dir, rel)).split("\n");
    lines.forEach((text, i) => {
      for (const m of text.matchAll(/\bHttpError\b/g)) {
        if (/class HttpError/.test(text) && rel === "src/errors.ts") continue;
        sites.push({ relative_path: rel, line: i + 1, column: (m.index ?? 0) + 1 });
      }
    });
  }
  return siteKeys(sites);
}

const keys = (r: RefsResult) => siteKeys(sitesOf(r));
const withProjects = (r: RefsResult) =>
  sitesOf(r)
    .map((s) => `${s.relative_path}:${s.line}:${s.column ?? ""} ${JSON.stringify(s.project)}`)
    .sort();

describe("which project answered (e2e, typescript-language-server)", () => {
  let fresh: { fx: TempProject; h: ScalpelHandle };
  let primed: { fx: TempProject; h: ScalpelHandle };
  let expected: string[];
  let first: RefsResult;

  before(async () => {
    [fresh, primed] = await Promise.all([serveFixture("ts-projects"), serveFixture("ts-projects")]);
    expected = await expectedSites(fresh.fx.dir);
    first = await callOk<RefsResult>(fresh.h, "find_referencing_symbols", query);
  });

  after(async () => {
    await stopServing(fresh?.h, fresh?.fx);
    await stopServing(primed?.h, primed?.fx);
  });

  it("finds every use, in and outside the tsconfig, from a fresh server", () => {
    assert.equal(first.complete, true, first.incomplete_reason);
    assert.ok(expected.some((k) => k.startsWith("test/")) && expected.some((k) => k.startsWith("scripts/")));
    assert.deepEqual(keys(first), expected);
  });

  it("gives the same answer after other files were opened first, in either order", async () => {
    const h = primed.h;
    // Outside files first (each joins an inferred project), then the sub-package, then an unrelated loose file.
    await callOk(h, "get_diagnostics_for_file", { relative_path: "test/client.test.ts" });
    await callOk(h, "get_symbols_overview", { relative_path: "packages/extra/src/retry.ts" });
    await callOk(h, "get_symbols_overview", { relative_path: "test/helpers.ts" });
    const afterOpens = await callOk<RefsResult>(h, "find_referencing_symbols", query);
    assert.equal(afterOpens.complete, true, afterOpens.incomplete_reason);
    assert.deepEqual(withProjects(afterOpens), withProjects(first));
    // The other order on the first server: references were asked first, now the files are opened.
    await callOk(fresh.h, "get_symbols_overview", { relative_path: "test/helpers.ts" });
    await callOk(fresh.h, "get_diagnostics_for_file", { relative_path: "scripts/smoke.ts" });
    await callOk(fresh.h, "get_symbols_overview", { relative_path: "test/client.test.ts" });
    const again = await callOk<RefsResult>(fresh.h, "find_referencing_symbols", query);
    assert.deepEqual(withProjects(again), withProjects(first));
  });

  it("names the project that answered, and the other project of each site outside it", () => {
    assert.equal(first.project, "tsconfig.json");
    assert.equal(first.project_note, undefined);
    const byFile = new Map(filesOf(first).map((f) => [f.relative_path, f.project]));
    assert.equal(byFile.get("src/client.ts"), undefined, "a site in the symbol's own project names none");
    assert.equal(byFile.get("test/client.test.ts"), null);
    assert.equal(byFile.get("scripts/smoke.ts"), null);
    assert.equal(byFile.get("packages/extra/src/retry.ts"), "packages/extra/tsconfig.json");
  });

  it("rename_symbol renames the uses outside every tsconfig although no call opened them", async () => {
    const r = await callOk<{ files: string[] }>(primed.h, "rename_symbol", {
      name_path: "TimeoutError",
      relative_path: "src/errors.ts",
      new_name: "DeadlineError",
      dry_run: true,
    });
    assert.deepEqual(
      editedFiles(r)
        .map((f) => f.relative_path)
        .sort(),
      ["scripts/timeout.ts", "src/errors.ts"],
    );
  });

  it("safe_delete_symbol refuses a symbol used only outside every tsconfig, whatever is open", async () => {
    // No call so far opened scripts/timeout.ts, the only file that uses it.
    const r = await call(primed.h.client, "safe_delete_symbol", {
      name_path: "TimeoutError",
      relative_path: "src/errors.ts",
      dry_run: true,
    });
    assert.equal(r.isError, true, r.text);
    assert.match(r.text, /symbol_in_use/);
    assert.match(r.text, /scripts\/timeout\.ts:1/);
  });

  it("get_diagnostics_for_file names the tsconfig, or says the file is in none", async () => {
    const inside = await callOk<DiagResult>(primed.h, "get_diagnostics_for_file", {
      relative_path: "src/client.ts",
    });
    assert.equal(inside.project, "tsconfig.json");
    assert.equal(inside.project_note, undefined);
    const sub = await callOk<DiagResult>(primed.h, "get_diagnostics_for_file", {
      relative_path: "packages/extra/src/retry.ts",
    });
    assert.equal(sub.project, "packages/extra/tsconfig.json");
    const loose = await callOk<DiagResult>(primed.h, "get_diagnostics_for_file", {
      relative_path: "test/client.test.ts",
    });
    assert.equal(loose.project, null);
    assert.match(loose.project_note ?? "", /outside every tsconfig.*inferred project with default options/);
  });
});

describe("references from more loose files than stay open at once (e2e, typescript-language-server)", () => {
  let fx: TempProject;
  let h: ScalpelHandle;
  // Documents keeps 40 files open; the loose files are opened in batches and the answers merged.
  const loose = 45;

  before(async () => {
    fx = await copyFixture("ts-projects");
    await mkdir(join(fx.dir, "test", "many"));
    for (let i = 0; i < loose; i++) {
      await writeFile(
        join(fx.dir, "test", "many", `case${String(i).padStart(2, "0")}.test.ts`),
        `import { HttpError } from "../../src/errors";\nexport const e${i} = new HttpError(${400 + i});\n`,
      );
    }
    h = await startScalpel({ project: fx.dir });
  });

  after(async () => {
    await stopServing(h, fx);
  });

  it("finds every site, complete, whatever the order", async () => {
    const expected = await expectedSites(fx.dir);
    assert.equal(expected.filter((k) => k.startsWith("test/many/")).length, loose * 2);
    const r = await callOk<RefsResult>(h, "find_referencing_symbols", query);
    assert.equal(r.complete, true, r.incomplete_reason);
    assert.deepEqual(keys(r), expected);
    await callOk(h, "get_symbols_overview", { relative_path: "test/many/case44.test.ts" });
    const again = await callOk<RefsResult>(h, "find_referencing_symbols", query);
    assert.deepEqual(withProjects(again), withProjects(r));
  });
});

const skipRust = rustAnalyzerMissing() ?? otherLanguageOnNativePass();
if (skipRust) process.stdout.write(`# SKIP which project answered (Rust): ${skipRust}\n`);

describe("which project answered: Cargo packages (e2e, rust-analyzer + tsls)", {
  skip: skipRust ?? false,
}, () => {
  let fx: TempProject;
  let h: ScalpelHandle;

  before(async () => {
    fx = await copyFixture("mixed");
    h = await startScalpel({ project: fx.dir, env: { CARGO_TARGET_DIR: join(fx.dir, "target") } });
  });

  after(async () => {
    await stopServing(h, fx);
  });

  it("names the workspace member's Cargo.toml for diagnostics and references", async () => {
    const d = await callOk<DiagResult>(h, "get_diagnostics_for_file", {
      relative_path: "engine/src/main.rs",
    });
    assert.equal(d.project, "engine/Cargo.toml");
    const r = await callOk<RefsResult>(h, "find_referencing_symbols", {
      name_path: "Ledger/record",
      relative_path: "engine/src/main.rs",
    });
    assert.equal(r.project, "engine/Cargo.toml");
    assert.ok(r.files.length > 0);
    assert.ok(filesOf(r).every((f) => f.project === undefined));
  });

  it("names the tsconfig for a TypeScript file of the same project", async () => {
    const d = await callOk<DiagResult>(h, "get_diagnostics_for_file", { relative_path: "src/cart.ts" });
    assert.equal(d.project, "tsconfig.json");
  });
});
