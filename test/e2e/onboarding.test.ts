/**
 * The onboarding flow over the built CLI: a fresh project says onboarding is recommended and the
 * onboarding tool gives instructions built from the project's own files; once memories exist,
 * activate_project lists them and says onboarding was performed.
 */
import { strict as assert } from "node:assert";
import { cp, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fixturesRoot, makeTempProject, type TempProject } from "../helpers/fixtures.js";
import { callOk, type ScalpelHandle, startScalpel } from "../helpers/mcp.js";

interface Activation {
  name: string;
  languages: string[];
  memories: string[];
  onboarding_performed: boolean;
  instructions: string;
}

describe("onboarding (e2e)", () => {
  let fx: TempProject;
  let h: ScalpelHandle;
  let rust: string;

  before(async () => {
    fx = await makeTempProject("scalpel-onboarding-e2e-");
    const dir = fx.dir;
    await mkdir(join(dir, ".scalpel"));
    // `languages: []` keeps language servers out of this test: onboarding reads files, not symbols.
    await writeFile(
      join(dir, ".scalpel", "project.yml"),
      "name: shopfront\nlanguages: []\ninitial_prompt: Always run npm test before you finish.\n",
    );
    await writeFile(
      join(dir, "package.json"),
      JSON.stringify({
        name: "shopfront",
        main: "dist/index.js",
        bin: { shop: "dist/cli.js" },
        scripts: { build: "tsc -p .", test: "node --test", lint: "biome check ." },
      }),
    );
    await mkdir(join(dir, "src"));
    await writeFile(join(dir, "src", "index.js"), "export const x = 1;\n");
    await writeFile(join(dir, "README.md"), "# Shopfront\n");
    await writeFile(join(dir, "Makefile"), "release: build\n\tnpm publish\n");
    await mkdir(join(dir, ".github", "workflows"), { recursive: true });
    await writeFile(join(dir, ".github", "workflows", "ci.yml"), "on: push\n");

    rust = join(fx.base, "crate");
    await mkdir(join(rust, "src"), { recursive: true });
    await mkdir(join(rust, ".scalpel"));
    await writeFile(join(rust, ".scalpel", "project.yml"), "languages: []\n");
    await writeFile(join(rust, "Cargo.toml"), '[package]\nname = "crate"\nversion = "0.1.0"\n');
    await writeFile(join(rust, "src", "main.rs"), "fn main() {}\n");
    await mkdir(join(fx.base, "dartapp", "bin"), { recursive: true });
    await mkdir(join(fx.base, "dartapp", ".scalpel"));
    await writeFile(join(fx.base, "dartapp", ".scalpel", "project.yml"), "languages: []\n");
    await writeFile(
      join(fx.base, "dartapp", "pubspec.yaml"),
      "name: dartapp\ndependencies:\n  path: ^1.8.0\n",
    );
    await writeFile(join(fx.base, "dartapp", "bin", "main.dart"), "void main() {}\n");
    await cp(join(fixturesRoot, "go-basic"), join(fx.base, "gomod"), { recursive: true });
    await mkdir(join(fx.base, "gomod", ".scalpel"));
    await writeFile(join(fx.base, "gomod", ".scalpel", "project.yml"), "languages: []\n");

    h = await startScalpel({ cwd: fx.base, env: { SCALPEL_HOME: join(fx.base, "home") } });
  });
  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  it("a fresh project: onboarding is recommended; the config's initial_prompt is passed on", async () => {
    const a = await callOk<Activation>(h, "activate_project", { project: "project" });
    assert.equal(a.name, "shopfront");
    assert.deepEqual(a.memories, []);
    assert.equal(a.onboarding_performed, false);
    assert.match(a.instructions, /onboarding is recommended/);
    assert.match(a.instructions, /Always run npm test before you finish\./);
    assert.deepEqual(h.hostPathLeaks, []);
  });

  it("onboarding gives instructions built from what the project contains", async () => {
    const { instructions } = await callOk<{ instructions: string }>(h, "onboarding");
    for (const expected of [
      "src/",
      "README.md",
      "package.json",
      // main: dist/index.js was never built; its source is named instead. bin dist/cli.js has no
      // source and is not named at all.
      "src/index.js (package.json main)",
      "npm test (package.json: node --test)",
      "npm run build (package.json: tsc -p .)",
      "npm run lint",
      "make release (Makefile)",
      ".github/workflows/ci.yml",
      "get_symbols_overview on 'src/index.js'",
    ]) {
      assert.ok(instructions.includes(expected), `'${expected}' in:\n${instructions}`);
    }
    assert.doesNotMatch(instructions, /dist\//);
    for (const memory of ["overview", "architecture", "commands", "conventions", "gotchas"]) {
      assert.match(instructions, new RegExp(`^- ${memory}: `, "m"));
    }
    assert.ok(!instructions.includes(fx.base));
  });

  it("Cargo.toml and pubspec.yaml give their entry points and commands", async () => {
    await callOk(h, "activate_project", { project: "crate" });
    const cargo = (await callOk<{ instructions: string }>(h, "onboarding")).instructions;
    for (const s of ["Cargo.toml", "src/main.rs (Cargo binary)", "cargo test", "cargo build"]) {
      assert.ok(cargo.includes(s), `'${s}' in:\n${cargo}`);
    }
    await callOk(h, "activate_project", { project: "dartapp" });
    const dart = (await callOk<{ instructions: string }>(h, "onboarding")).instructions;
    for (const s of ["pubspec.yaml", "bin/main.dart (Dart executable)", "dart test", "dart analyze"]) {
      assert.ok(dart.includes(s), `'${s}' in:\n${dart}`);
    }
  });

  it("go.mod gives the module, its Go version, the main packages and the go commands", async () => {
    await callOk(h, "activate_project", { project: "gomod" });
    const { instructions } = await callOk<{ instructions: string }>(h, "onboarding");
    for (const s of [
      "- Build files: go.mod",
      "- Go module example.com/gobasic: go 1.22, 0 direct requirements (go.mod)",
      "- Entry points: cmd/shop/main.go (Go command)",
      "- go build ./... (go.mod)",
      "- go test ./... (go.mod)",
      "- go vet ./... (go.mod; lint)",
      "get_symbols_overview on 'cmd/shop/main.go'",
    ]) {
      assert.ok(instructions.includes(s), `'${s}' in:\n${instructions}`);
    }
    assert.doesNotMatch(instructions, /package\.json|Cargo\.toml|npm|cargo/);
    const summary = JSON.parse(
      ((await h.client.readResource({ uri: "scalpel://project/summary" })).contents[0] as { text: string })
        .text,
    ) as { build_files: string[]; commands: string[]; notes?: string[] };
    assert.deepEqual(summary.build_files, ["go.mod"]);
    assert.deepEqual(summary.notes, [
      "Go module example.com/gobasic: go 1.22, 0 direct requirements (go.mod)",
    ]);
    assert.ok(summary.commands.includes("go test ./... (go.mod)"), summary.commands.join("\n"));
    assert.deepEqual(h.hostPathLeaks, []);
  });

  it("once memories exist, activate_project lists them and says onboarding is done", async () => {
    await callOk(h, "activate_project", { project: "project" });
    await callOk(h, "write_memory", { name: "overview", content: "# Shopfront\n" });
    await callOk(h, "write_memory", { name: "commands", content: "npm test\n" });
    // Activated by its registered name this time.
    const a = await callOk<Activation>(h, "activate_project", { project: "shopfront" });
    assert.deepEqual(a.memories, ["commands", "overview"]);
    assert.equal(a.onboarding_performed, true);
    assert.match(a.instructions, /Onboarding was already performed/);
    assert.doesNotMatch(a.instructions, /onboarding is recommended/);
    // Onboarding now asks only for the missing memories.
    const { instructions } = await callOk<{ instructions: string }>(h, "onboarding");
    assert.match(instructions, /Memories already written: commands, overview/);
    assert.match(instructions, /^- architecture: /m);
    assert.doesNotMatch(instructions, /^- overview: /m);
  });

  it("initial_instructions explains memories", async () => {
    const { instructions } = await callOk<{ instructions: string }>(h, "initial_instructions");
    for (const t of [
      "list_memories",
      "read_memory",
      "write_memory",
      "edit_memory",
      "delete_memory",
      "onboarding",
    ]) {
      assert.ok(instructions.includes(t), t);
    }
    const init = h.client.getInstructions() ?? "";
    assert.match(init, /initial_instructions/);
    // A pointer to the manual and the parameters many tools share (said once here, not per tool).
    assert.match(init, /max_answer_chars/);
    assert.ok(init.length <= 1000, `the MCP instructions field is short: ${init.length} characters`);
  });
});
