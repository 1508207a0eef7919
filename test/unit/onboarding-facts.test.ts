// Onboarding tells the truth: the package manager of the lockfile, scripts as it runs them,
// workspace packages, and entry points that exist in the tree (sources, not build outputs).
import * as assert from "node:assert/strict";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { adapters } from "../../language-servers/index.js";
import { scriptCommand } from "../../language-servers/npm-facts.js";
import { log } from "../../src/core/log.js";
import { projectFacts } from "../../src/onboarding/facts.js";
import { onboardingInstructions } from "../../src/onboarding/instructions.js";
import { openProject } from "../../src/project/open-project.js";
import { makeTempProject, type TempProject } from "../helpers/fixtures.js";
import { missingPaths, put, writePnpmWorkspace } from "../helpers/repo-truth.js";

let tmp: TempProject;
const project = () => openProject({ root: tmp.dir, readOnly: true }, log);

before(async () => {
  tmp = await makeTempProject("scalpel-onboarding-facts-");
  await writePnpmWorkspace(tmp.dir);
});
after(() => tmp.cleanup());

test("a pnpm workspace: pnpm commands, its packages, entry points mapped back to sources", async () => {
  const facts = await projectFacts(project(), ["typescript"]);
  assert.equal(facts.packageManager, "pnpm (pnpm-lock.yaml)");
  assert.deepEqual(facts.workspaces, ["packages/a", "packages/b"]);
  assert.deepEqual(facts.entryPoints, [
    // dist/index.js, dist/index.mjs and dist/index.cjs all stand for the one source; dist/cli.js
    // has no source and is not named.
    "packages/a/src/index.ts (packages/a/package.json main, exports)",
    "packages/b/bin/run.js (packages/b/package.json bin)",
  ]);
  assert.deepEqual(facts.commands, [
    "pnpm install (pnpm-lock.yaml)",
    "pnpm run build (package.json: tsc -b)",
    "pnpm test (package.json: vitest run)",
    "pnpm run lint (package.json: biome check .)",
    "pnpm --filter demo-a run test (packages/a/package.json)",
  ]);
  assert.equal(facts.overviewFile, "packages/a/src/index.ts");
  const text = await onboardingInstructions(project(), ["typescript"]);
  assert.doesNotMatch(text, /\bnpm (test|run)\b/);
  assert.doesNotMatch(text, /dist|distribution/);
  assert.match(text, /get_symbols_overview on 'packages\/a\/src\/index\.ts'/);
  assert.deepEqual(missingPaths(tmp.dir, text), []);
});

test("the manager follows packageManager, then the lockfile; no lockfile is npm", async () => {
  const p = project();
  const pkg = join(tmp.dir, "package.json");
  const original = JSON.stringify({ name: "demo", scripts: { test: "t", build: "b" } });
  try {
    await writeFile(pkg, JSON.stringify({ ...JSON.parse(original), packageManager: "yarn@4.1.0" }));
    assert.equal((await projectFacts(p, [])).packageManager, "yarn (package.json packageManager)");
    await writeFile(pkg, original);
    await rm(join(tmp.dir, "pnpm-lock.yaml"));
    await put(tmp.dir, "bun.lockb", "");
    const bun = await projectFacts(p, []);
    assert.equal(bun.packageManager, "bun (bun.lockb)");
    // `bun test` is bun's own test runner, not the script.
    assert.ok(bun.commands.includes("bun run test (package.json: t)"), bun.commands.join("\n"));
    await rm(join(tmp.dir, "bun.lockb"));
    const npm = await projectFacts(p, []);
    assert.equal(npm.packageManager, "npm (no lockfile)");
    assert.ok(npm.commands.includes("npm test (package.json: t)"));
  } finally {
    await writePnpmWorkspace(tmp.dir);
  }
});

test("the suggested overview is a file that declares something, not a barrel of re-exports", async () => {
  await put(tmp.dir, "packages/a/src/index.ts", 'export * from "./core.js";\nexport { x } from "./x.js";\n');
  await put(tmp.dir, "packages/b/bin/run.js", 'import "./polyfill.js";\nexport * from "../lib.js";\n');
  await put(tmp.dir, "src/core.ts", "/** docs */\nexport function core(): number {\n  return 1;\n}\n");
  try {
    assert.equal((await projectFacts(project(), [])).overviewFile, "src/core.ts");
  } finally {
    await rm(join(tmp.dir, "src"), { recursive: true });
    await writePnpmWorkspace(tmp.dir);
  }
});

test("scriptCommand: how each manager runs a script", () => {
  assert.equal(scriptCommand("pnpm", "test"), "pnpm test");
  assert.equal(scriptCommand("pnpm", "build"), "pnpm run build");
  assert.equal(scriptCommand("yarn", "start"), "yarn start");
  assert.equal(scriptCommand("bun", "test"), "bun run test");
  assert.equal(scriptCommand("npm", "lint"), "npm run lint");
});

test("a Go module: module path, Go version, direct requirements, main packages, go commands", async () => {
  const go = await makeTempProject("scalpel-onboarding-go-");
  try {
    await put(
      go.dir,
      "go.mod",
      [
        "module example.com/shop // the module path",
        "",
        "go 1.22",
        "",
        "toolchain go1.23.4",
        "",
        "require github.com/google/uuid v1.6.0",
        "",
        "require (",
        "\t// a comment line is no requirement",
        "\tgolang.org/x/sync v0.7.0",
        "\tgolang.org/x/text v0.16.0 // indirect",
        ")",
        "",
        "replace golang.org/x/sync => ../sync",
        "",
      ].join("\n"),
    );
    await put(go.dir, "main.go", "package main\n\nfunc main() {}\n");
    await put(go.dir, "cmd/shop/main.go", "package main\n\nfunc main() {}\n");
    await put(go.dir, "cmd/empty/README.md", "no main package here\n");
    await put(go.dir, "go.work", "go 1.22\n\nuse (\n\t.\n\t./tools\n)\n");
    await put(go.dir, "tools/go.mod", "module example.com/tools\n");
    const facts = await projectFacts(openProject({ root: go.dir, readOnly: true }, log), ["go"]);
    assert.deepEqual(facts.manifests, ["go.mod", "go.work"]);
    assert.deepEqual(facts.notes, [
      "Go module example.com/shop: go 1.22, toolchain go1.23.4, 2 direct requirements (1 indirect) (go.mod)",
    ]);
    assert.deepEqual(facts.entryPoints, ["main.go (Go main package)", "cmd/shop/main.go (Go command)"]);
    assert.deepEqual(facts.commands, [
      "go build ./... (go.mod)",
      "go test ./... (go.mod)",
      "go vet ./... (go.mod; lint)",
      "gofmt -l . (go.mod; format)",
    ]);
    assert.deepEqual(facts.workspaces, ["tools"]);
    assert.equal(facts.packageManager, null);
    const text = await onboardingInstructions(openProject({ root: go.dir, readOnly: true }, log), ["go"]);
    assert.match(text, /^- Go module example\.com\/shop: go 1\.22/m);
    assert.match(text, /^- go test \.\/\.\.\. \(go\.mod\)$/m);
    // `cmd/` is where Go keeps its commands (the Go adapter says so), `tools/` is nothing special.
    assert.match(text, /then list_dir on 'cmd'\./);
    // The module path and the go command's package pattern look like paths; nothing else may.
    assert.deepEqual(
      missingPaths(go.dir, text).filter((t) => t !== "example.com/shop" && t !== "./..."),
      [],
    );
  } finally {
    await go.cleanup();
  }
});

test("a project with no manifest at all names every manifest onboarding reads", async () => {
  const bare = await makeTempProject("scalpel-onboarding-bare-");
  try {
    await put(bare.dir, "notes.txt", "hello\n");
    const text = await onboardingInstructions(openProject({ root: bare.dir, readOnly: true }, log), []);
    const line = /^- none in (.*): look at the README/m.exec(text)?.[1] ?? "";
    for (const manifest of adapters.flatMap((a) => a.onboarding?.manifests ?? []))
      assert.ok(line.includes(manifest), `${manifest} in: ${line}`);
    assert.match(line, /a Makefile$/);
  } finally {
    await bare.cleanup();
  }
});

test("Cargo.toml is read as TOML: a [[bin]] path after a required-features array, workspace members", async () => {
  const rs = await makeTempProject("scalpel-onboarding-cargo-");
  try {
    await put(
      rs.dir,
      "Cargo.toml",
      [
        "[workspace]",
        "members = [ # the crates",
        '  "crates/core",',
        '  "crates/cli",',
        "]",
        "",
        "[package]",
        'name = "shop"',
        "",
        "[[bin]]",
        'name = "serve"',
        "required-features = [",
        '  "server",',
        "]",
        'path = "src/bin/serve.rs"',
        "",
        "[[bin]]",
        'path = "tools/gen.rs" # after a comment too',
        'name = "gen"',
        "",
      ].join("\n"),
    );
    await put(rs.dir, "src/main.rs", "fn main() {}\n");
    await put(rs.dir, "src/bin/serve.rs", "fn main() {}\n");
    await put(rs.dir, "tools/gen.rs", "fn main() {}\n");
    const p = openProject({ root: rs.dir, readOnly: true }, log);
    const facts = await projectFacts(p, ["rust"]);
    assert.deepEqual(facts.entryPoints, [
      "Cargo workspace members: crates/core, crates/cli",
      "src/bin/serve.rs (Cargo.toml [[bin]])",
      "tools/gen.rs (Cargo.toml [[bin]])",
      "src/main.rs (Cargo binary)",
    ]);
    assert.ok(facts.commands.includes("cargo test (Cargo.toml)"));

    // A Cargo.toml that is not TOML says nothing (as one that cannot be read), and fails nothing.
    await put(rs.dir, "Cargo.toml", '[package\nname = "shop"\n[[bin]]\npath = "src/bin/serve.rs"\n');
    const broken = await projectFacts(p, ["rust"]);
    assert.ok(!broken.manifests.includes("Cargo.toml"), broken.manifests.join(", "));
    assert.deepEqual(broken.entryPoints, []);
    assert.ok(!broken.commands.some((c) => c.startsWith("cargo ")), broken.commands.join("\n"));
    const text = await onboardingInstructions(p, ["rust"]);
    assert.doesNotMatch(text, /cargo build/);
  } finally {
    await rs.cleanup();
  }
});

test("a pyproject.toml that is not TOML is left out; the project's other files still speak", async () => {
  const py = await makeTempProject("scalpel-onboarding-pyproject-");
  try {
    await put(py.dir, "pyproject.toml", '[project]\nname = "shop\n');
    const p = openProject({ root: py.dir, readOnly: true }, log);
    const alone = await projectFacts(p, ["python"]);
    assert.deepEqual(alone.manifests, []);
    assert.deepEqual(alone.commands, []);
    await put(py.dir, "requirements.txt", "httpx\n");
    const withRequirements = await projectFacts(p, ["python"]);
    assert.deepEqual(withRequirements.manifests, ["requirements.txt"]);
    assert.deepEqual(withRequirements.notes, []);
    assert.ok(
      withRequirements.commands.includes("pip install -r requirements.txt (requirements.txt; install)"),
    );
  } finally {
    await py.cleanup();
  }
});
