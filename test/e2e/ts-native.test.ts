// @alone it trusts projects or reads trust in the tests' default SCALPEL_HOME, shared in a group
// @tsserver-only it chooses each backend itself
/**
 * TypeScript 7's native server as the `typescript` backend, over the built CLI: which backend a
 * project gets (its TypeScript major, `typescript_backend`), whose binary runs (the project's own
 * install only when the project is trusted), what `doctor` says, and the native server's own quirks
 * (import bindings among document symbols, import sites left out of references without the
 * declaration). The rest of the TypeScript e2e suite runs on this backend too (test/run.mjs,
 * `e2e-native`).
 */
import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { lineOf } from "../helpers/anchors.js";
import { copyFixture, readText, repoRoot, type TempProject } from "../helpers/fixtures.js";
import {
  assertCliBuilt,
  callOk,
  cliPath,
  filesOf,
  type ReferencesResult,
  type ScalpelHandle,
  type Sym,
  sitesOf,
  startScalpel,
} from "../helpers/mcp.js";

const platformDir = `typescript-${process.platform}-${process.arch}`;
const scalpelsTsc = join(repoRoot, "node_modules", "@typescript", platformDir, "lib", "tsc");
/** Whatever the run's SCALPEL_TS_BACKEND, these tests choose by the project. */
const unforced = { SCALPEL_TS_BACKEND: "" };

/** The command line of the running TypeScript server (Linux: /proc). */
async function serverCommand(h: ScalpelHandle): Promise<string> {
  await callOk(h, "find_symbol", { name_path_pattern: "Money", relative_path: "src/money.ts" });
  const config = await callOk<{ servers: Array<{ language: string; pid?: number }> }>(
    h,
    "get_current_config",
  );
  const pid = config.servers.find((s) => s.language === "typescript")?.pid;
  assert.ok(pid, JSON.stringify(config.servers));
  return (await readFile(`/proc/${pid}/cmdline`, "utf8")).split("\0").join(" ").trim();
}

async function withPackageJson(fx: TempProject, typescript: string): Promise<void> {
  await writeFile(
    join(fx.dir, "package.json"),
    JSON.stringify({ name: "app", private: true, devDependencies: { typescript } }),
  );
}

describe("TypeScript 7 native backend: selection (e2e)", () => {
  let fx: TempProject;

  before(async () => {
    fx = await copyFixture("ts-basic");
  });

  after(() => fx.cleanup());

  it("a project that depends on TypeScript 7 gets the native server, scalpel's own copy", async () => {
    await withPackageJson(fx, "^7.0.2");
    const h = await startScalpel({ project: fx.dir, env: unforced });
    try {
      const cmd = await serverCommand(h);
      assert.equal(cmd, `${scalpelsTsc} --lsp --stdio`);
    } finally {
      await h.close();
    }
  });

  it("typescript_backend: tsserver in project.yml wins over the dependency", async () => {
    await mkdir(join(fx.dir, ".scalpel"), { recursive: true });
    await writeFile(join(fx.dir, ".scalpel", "project.yml"), "typescript_backend: tsserver\n");
    const h = await startScalpel({ project: fx.dir, env: unforced });
    try {
      assert.match(await serverCommand(h), /typescript-language-server/);
    } finally {
      await h.close();
    }
  });

  it("a project on TypeScript 5 keeps tsserver; doctor names the backend and why", async () => {
    assertCliBuilt();
    const doctor = (args: string[]) => {
      const r = spawnSync(process.execPath, [cliPath, "doctor", ...args], {
        encoding: "utf8",
        env: { ...process.env, ...unforced },
        timeout: 60_000,
      });
      assert.equal(r.status, 0, r.stderr);
      return r.stdout;
    };
    const all = doctor([]);
    assert.match(all, /^✔ TypeScript \/ JavaScript \(TypeScript 7 native\): typescript 7\.0\.2 \(native\)/m);
    assert.match(doctor(["--project", fx.dir]), /TypeScript backend tsserver \(typescript_backend in/);
    await writeFile(join(fx.dir, ".scalpel", "project.yml"), "");
    assert.match(
      doctor(["--project", fx.dir]),
      /TypeScript backend native \(package\.json devDependencies has typescript \^7\.0\.2\)/,
    );
    await withPackageJson(fx, "5.9.3");
    assert.match(doctor(["--project", fx.dir]), /TypeScript backend tsserver \(default/);
    const h = await startScalpel({ project: fx.dir, env: unforced });
    try {
      assert.match(await serverCommand(h), /typescript-language-server/);
    } finally {
      await h.close();
    }
  });
});

describe("TypeScript 7 native backend: the project's own install runs only when trusted (e2e)", () => {
  let fx: TempProject;
  let marker: string;

  before(async () => {
    fx = await copyFixture("ts-basic");
    marker = join(fx.base, "project-tsc-ran");
    // The project's node_modules holds typescript 7 whose platform binary is a script of the
    // repository: it leaves a mark, then runs the real server.
    const ts = join(fx.dir, "node_modules", "typescript");
    const platform = join(fx.dir, "node_modules", "@typescript", platformDir);
    await mkdir(ts, { recursive: true });
    await mkdir(join(platform, "lib"), { recursive: true });
    await writeFile(join(ts, "package.json"), JSON.stringify({ name: "typescript", version: "7.0.2" }));
    await writeFile(
      join(platform, "package.json"),
      JSON.stringify({ name: `@typescript/${platformDir}`, version: "7.0.2" }),
    );
    const script = join(platform, "lib", "tsc");
    await writeFile(script, `#!/bin/sh\necho ran >> '${marker}'\nexec '${scalpelsTsc}' "$@"\n`);
    await chmod(script, 0o755);
  });

  after(() => fx.cleanup());

  it("untrusted: scalpel's own native server answers, the repository's binary never runs", async () => {
    const h = await startScalpel({ project: fx.dir, env: unforced, trust: false });
    try {
      assert.equal(await serverCommand(h), `${scalpelsTsc} --lsp --stdio`);
    } finally {
      await h.close();
    }
    await assert.rejects(readFile(marker, "utf8"), /ENOENT/);
  });

  it("trusted: the project's own TypeScript 7 install is the server", async () => {
    const h = await startScalpel({ project: fx.dir, env: unforced });
    try {
      await serverCommand(h);
      const refs = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
        name_path: "Money/multiplyByRate",
        relative_path: "src/money.ts",
      });
      assert.equal(refs.complete, true);
      assert.ok(sitesOf(refs).length > 0);
    } finally {
      await h.close();
    }
    assert.match(await readFile(marker, "utf8"), /ran/);
  });
});

describe("TypeScript 7 native backend: the server's quirks (e2e)", () => {
  let fx: TempProject;
  let h: ScalpelHandle;

  before(async () => {
    fx = await copyFixture("ts-basic");
    await mkdir(join(fx.dir, ".scalpel"));
    await writeFile(join(fx.dir, ".scalpel", "project.yml"), "typescript_backend: native\n");
    h = await startScalpel({ project: fx.dir, env: unforced });
  });

  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  it("runs the native server", async () => {
    assert.equal(await serverCommand(h), `${scalpelsTsc} --lsp --stdio`);
  });

  it("import bindings are not symbols of the importing file", async () => {
    const r = await callOk<{ files: Array<{ symbols: Sym[] }> }>(h, "get_symbols_overview", {
      relative_path: "src/main.ts",
    });
    const names = r.files.flatMap((f) => f.symbols.map((s) => s.name_path));
    for (const imported of ["Color", "colorName", "café", "größe", "Straße", "Wallet"])
      assert.ok(!names.includes(imported), `${imported} is imported, not declared: ${names.join(", ")}`);
    assert.ok(names.includes("main"), names.join(", "));
  });

  it("import sites are references (the native server leaves them out without the declaration)", async () => {
    const r = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
      name_path: "größe",
      relative_path: "src/unicode.ts",
    });
    const main = await readText(fx.dir, "src/main.ts");
    const file = filesOf(r).find((f) => f.relative_path === "src/main.ts");
    assert.deepEqual(file?.imports, [lineOf(main, "import { café")]);
    // The declaration itself is not a reference.
    const unicode = await readText(fx.dir, "src/unicode.ts");
    const own = sitesOf(r).filter((s) => s.relative_path === "src/unicode.ts");
    assert.ok(!own.some((s) => s.line === lineOf(unicode, "export function größe")), JSON.stringify(own));
  });

  it("overload signatures are declarations, not references", async () => {
    const r = await callOk<ReferencesResult>(h, "find_referencing_symbols", {
      name_path: "parse[2]",
      relative_path: "src/parse.ts",
    });
    assert.ok(!sitesOf(r).some((s) => s.relative_path === "src/parse.ts"), JSON.stringify(sitesOf(r)));
  });

  it("a change on disk is seen by the next diagnostics call (client file watching, pulled diagnostics)", async () => {
    const path = join(fx.dir, "src", "native-probe.ts");
    await writeFile(path, 'export const probe: number = "not a number";\n');
    const check = () =>
      callOk<{ diagnostics: Array<{ message: string }>; complete: boolean }>(h, "get_diagnostics_for_file", {
        relative_path: "src/native-probe.ts",
      });
    const bad = await check();
    assert.equal(bad.complete, true);
    assert.ok(
      bad.diagnostics.some((d) => /not assignable/.test(d.message)),
      JSON.stringify(bad),
    );
    await writeFile(path, "export const probe: number = 1;\n");
    const fixed = await check();
    assert.equal(fixed.complete, true);
    assert.deepEqual(fixed.diagnostics, []);
  });
});
