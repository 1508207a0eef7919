/**
 * Answers follow the repository, through the SDK client as hosts call: a tracked `build/` folder of
 * sources is listed, found, searched and overviewed like any folder, and hidden once gitignored;
 * `target/` is output only beside a Cargo.toml; a tsconfig `outDir` is output. Onboarding on a pnpm
 * workspace names pnpm commands and only files that exist.
 */
import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import { appendFileSync, chmodSync, existsSync } from "node:fs";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { makeTempProject, type TempProject } from "../helpers/fixtures.js";
import { callOk, type ScalpelHandle, startScalpel } from "../helpers/mcp.js";
import { missingPaths, put, writePnpmWorkspace } from "../helpers/repo-truth.js";

const hit = "export const stamp = toDate(0);\n";

/** git with no system or user configuration (the test's own setup, not scalpel's). */
function git(cwd: string, ...args: string[]): void {
  const r = spawnSync("git", args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
  });
  assert.equal(r.status, 0, r.stderr);
}

describe("ignores and onboarding follow the repository (e2e)", () => {
  let fx: TempProject;
  let h: ScalpelHandle;

  before(async () => {
    fx = await makeTempProject("scalpel-repo-truth-");
    const dir = fx.dir;
    await put(dir, "package.json", JSON.stringify({ name: "app", scripts: { build: "tsc -p ." } }));
    await put(dir, "tsconfig.json", '{ "compilerOptions": { "outDir": "out", "strict": true } }\n');
    await put(dir, "src/to-date.ts", "export function toDate(n: number): Date {\n  return new Date(n);\n}\n");
    await put(dir, "src/main.ts", `import { toDate } from "./to-date";\n${hit}`);
    // Tracked sources in a folder named build (date-fns keeps its build scripts in scripts/build/).
    await put(
      dir,
      "build/tool.ts",
      `import { toDate } from "../src/to-date";\nexport function buildTool(): Date {\n  return toDate(1);\n}\n`,
    );
    await put(dir, "out/main.js", hit); // tsconfig outDir
    await put(dir, "crate/Cargo.toml", '[package]\nname = "crate"\nversion = "0.1.0"\n');
    await put(dir, "crate/target/gen.ts", hit); // cargo's output beside Cargo.toml
    await put(dir, "tools/target/aim.ts", hit); // a folder that only happens to be called target
    await writePnpmWorkspace(`${fx.base}/ws`);
    await put(`${fx.base}/ws`, ".scalpel/project.yml", "languages: []\n");
    h = await startScalpel({ cwd: fx.base, env: { SCALPEL_HOME: `${fx.base}/home` } });
    await callOk(h, "activate_project", { project: "project" });
  });
  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  /** What each listing and searching tool sees, as a flat list of project-relative files. */
  async function seen(): Promise<{ listed: string[]; found: string[]; searched: string }> {
    const [list, find, search] = await Promise.all([
      callOk<{ files: string[] }>(h, "list_dir", { relative_path: ".", recursive: true }),
      callOk<{ files: string[] }>(h, "find_file", { file_mask: "*.ts" }),
      h.call("search_for_pattern", { pattern: "toDate\\(" }),
    ]);
    assert.equal(search.isError, false, search.text);
    return {
      listed: list.files,
      found: find.files,
      searched: `${search.text}\n${JSON.stringify(search.structured)}`,
    };
  }

  it("a tracked build/ is seen by list_dir, find_file, search_for_pattern and get_symbols_overview", async () => {
    const s = await seen();
    for (const f of ["build/tool.ts", "tools/target/aim.ts", "src/main.ts"]) {
      assert.ok(s.listed.includes(f), `list_dir lists ${f}: ${s.listed.join(", ")}`);
    }
    assert.ok(s.found.includes("build/tool.ts"), s.found.join(", "));
    assert.ok(s.found.includes("tools/target/aim.ts"), s.found.join(", "));
    assert.match(s.searched, /build\/tool\.ts/);
    assert.match(s.searched, /tools\/target\/aim\.ts/);
    // Declared outputs stay hidden: tsconfig outDir, target/ beside Cargo.toml.
    for (const f of ["out/main.js", "crate/target/gen.ts"]) {
      assert.ok(!s.listed.includes(f), `list_dir hides ${f}`);
      assert.ok(!s.found.includes(f), `find_file hides ${f}`);
      assert.ok(!s.searched.includes(f), `search hides ${f}`);
    }
    const overview = await callOk<{ files: Array<{ relative_path: string; symbols: unknown[] }> }>(
      h,
      "get_symbols_overview",
      { relative_path: "build/tool.ts" },
    );
    assert.match(JSON.stringify(overview), /buildTool/);
  });

  it("the same build/ once gitignored is hidden", async () => {
    await put(fx.dir, ".gitignore", "build/\n");
    // Ignore files are re-checked after at most two seconds.
    await sleep(2200);
    const s = await seen();
    assert.ok(!s.listed.some((f) => f.startsWith("build/")), s.listed.join(", "));
    assert.ok(!s.found.includes("build/tool.ts"));
    assert.doesNotMatch(s.searched, /build\/tool\.ts/);
    assert.ok(s.found.includes("tools/target/aim.ts"));
  });

  it("a file git tracks is seen although .gitignore names it; an untracked one beside it is not; the repository's git config runs nothing", async () => {
    const dir = fx.dir;
    const marker = `${fx.base}/git-config-ran`;
    await put(dir, "build/extra.ts", hit);
    git(dir, "init", "-q");
    git(dir, "add", "-f", "build/tool.ts");
    await put(dir, "hook.sh", `#!/bin/sh\necho ran > ${marker}\n`);
    chmodSync(`${dir}/hook.sh`, 0o755);
    appendFileSync(
      `${dir}/.git/config`,
      `[core]\n\tfsmonitor = ${dir}/hook.sh\n[diff]\n\texternal = ${dir}/hook.sh\n`,
    );
    await sleep(2200); // the index, like ignore files, is looked at again after at most two seconds
    const s = await seen();
    assert.ok(s.listed.includes("build/tool.ts"), s.listed.join(", "));
    assert.ok(s.found.includes("build/tool.ts"), s.found.join(", "));
    assert.match(s.searched, /build\/tool\.ts/);
    assert.ok(!s.listed.includes("build/extra.ts"), "untracked and ignored");
    assert.ok(!s.found.includes("build/extra.ts"));
    assert.doesNotMatch(s.searched, /build\/extra\.ts/);
    assert.equal(existsSync(marker), false, "a program named by the repository's git config ran");
  });

  it("onboarding on a pnpm workspace: pnpm commands, source entry points, only paths that exist", async () => {
    await callOk(h, "activate_project", { project: "ws" });
    const { instructions } = await callOk<{ instructions: string }>(h, "onboarding");
    for (const expected of [
      "Package manager: pnpm (pnpm-lock.yaml)",
      "pnpm test (package.json: vitest run)",
      "pnpm run build (package.json: tsc -b)",
      "pnpm --filter demo-a run test",
      "Workspace packages: packages/a, packages/b",
      "packages/a/src/index.ts (packages/a/package.json main, exports)",
      "get_symbols_overview on 'packages/a/src/index.ts'",
    ]) {
      assert.ok(instructions.includes(expected), `'${expected}' in:\n${instructions}`);
    }
    assert.doesNotMatch(instructions, /\bnpm (test|run|install)\b/);
    assert.deepEqual(missingPaths(`${fx.base}/ws`, instructions), [], instructions);
    const summary = await h.client.readResource({ uri: "scalpel://project/summary" });
    const first = summary.contents[0];
    const facts = JSON.parse(first && "text" in first ? String(first.text) : "{}") as {
      package_manager?: string;
      entry_points?: string[];
    };
    assert.equal(facts.package_manager, "pnpm (pnpm-lock.yaml)");
    assert.deepEqual(facts.entry_points, [
      "packages/a/src/index.ts (packages/a/package.json main, exports)",
      "packages/b/bin/run.js (packages/b/package.json bin)",
    ]);
  });
});
