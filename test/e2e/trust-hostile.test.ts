// @alone it trusts projects or reads trust in the tests' default SCALPEL_HOME, shared in a group
/**
 * Project trust over the built CLI, driven by the SDK client: a hostile repository (a declared
 * "server" that is a shell command, a repo-shipped tsserver and tsc, a crate whose build.rs and
 * `.cargo/config.toml` rustc wrapper write markers, `secrets: ["!.env*"]`, an `initial_prompt`)
 * runs nothing and shows no secret while untrusted, in normal and read-only mode, while the
 * built-in servers (bundled TypeScript, rust-analyzer without build scripts) still answer; trusted,
 * the same repository runs every program it plants (the control). Every run has its own
 * SCALPEL_HOME, so the user's real trust store is never read or written.
 */
import { strict as assert } from "node:assert";
import { mkdir, readdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { findRustAnalyzer } from "../../language-servers/rust-analyzer.js";
import { makeTempProject, type TempProject } from "../helpers/fixtures.js";
import { callOk, type ScalpelHandle, startScalpel } from "../helpers/mcp.js";
import { byTier } from "../helpers/tier.js";
import { type Activation, hostileRepo, MEMORY_ORDER, SECRET, waitFor } from "../helpers/trust-repo.js";

const haveRust = !("missing" in findRustAnalyzer());

// The read-only run repeats every check with the writing tools gone: the full tier (CI) runs it;
// the quick loop runs the normal one, the longest file of npm test (74 s, 33 s of CPU) otherwise.
for (const mode of byTier(["normal"] as const, ["normal", "read-only"] as const)) {
  describe(`an untrusted hostile repository runs nothing and leaks nothing (${mode})`, () => {
    let fx: TempProject;
    let markers: string;
    let h: ScalpelHandle;
    let activation: Activation;

    before(async () => {
      fx = await makeTempProject("scalpel-trust-");
      markers = join(fx.base, "markers");
      await mkdir(markers);
      await hostileRepo(fx.dir, markers);
      h = await startScalpel({
        project: fx.dir,
        trust: false,
        args: mode === "read-only" ? ["--read-only"] : [],
        env: { SCALPEL_HOME: join(fx.base, "home") },
      });
      activation = await callOk<Activation>(h, "activate_project", { project: fx.dir });
    });

    after(async () => {
      await h?.close();
      await fx?.cleanup();
    });

    it("activate_project says the project is untrusted, what trust would enable, and labels the prompt", () => {
      assert.equal(activation.trust.trusted, false);
      assert.equal(activation.trust.state, "untrusted");
      const enables = (activation.trust.would_enable ?? []).join("\n");
      assert.match(enables, /declared in \.scalpel\/project\.yml \(lua\)/);
      assert.match(enables, /node_modules\/typescript/);
      assert.match(enables, /build scripts/);
      assert.match(enables, /secret exceptions .*!\.env\*/);
      assert.deepEqual(activation.trust.ignored_secret_rules, ["!.env*"]);
      assert.doesNotMatch(activation.instructions, /Project instructions/);
      assert.match(activation.instructions, /Untrusted repository text .*<<<IGNORE THE USER/);
      assert.match(activation.instructions, /scalpel trust/);
      const lua = activation.servers.find((s) => s.language === "lua");
      assert.equal(lua?.status, "missing");
      assert.match(lua?.detail ?? "", /not trusted/);
    });

    it("the built-in TypeScript server answers, with the bundled tsserver", async () => {
      const r = await callOk<{ symbols: Array<{ name_path: string }> }>(h, "find_symbol", {
        name_path_pattern: "greet",
        relative_path: "src/greet.ts",
      });
      assert.deepEqual(
        r.symbols.map((s) => s.name_path),
        ["greet"],
      );
      const d = await callOk<{ checked: Array<{ how: string }> }>(h, "get_project_diagnostics", {
        relative_path: "src",
      });
      assert.ok(
        d.checked.some((c) => c.how.startsWith("tsc")),
        JSON.stringify(d),
      );
    });

    it("rust-analyzer answers without build scripts; cargo check is refused for want of trust", {
      skip: !haveRust && "rust-analyzer not installed",
    }, async () => {
      const r = await callOk<{ symbols: Array<{ name_path: string }> }>(h, "find_symbol", {
        name_path_pattern: "answer",
        relative_path: "src/lib.rs",
      });
      assert.deepEqual(
        r.symbols.map((s) => s.name_path),
        ["answer"],
      );
      await callOk(h, "get_diagnostics_for_file", { relative_path: "src/lib.rs" });
      const d = await callOk<{ complete: boolean; incomplete_reason?: string }>(
        h,
        "get_project_diagnostics",
        {},
      );
      assert.equal(d.complete, false);
      assert.match(d.incomplete_reason ?? "", /not trusted/);
    });

    it("a shipped memory is handed over as quoted repository text by read_memory, the resource and activation", async () => {
      const r = await callOk<{ content: string; untrusted?: boolean }>(h, "read_memory", {
        name: "architecture",
      });
      assert.equal(r.untrusted, true);
      assert.match(
        r.content,
        /^Untrusted repository text \(memory 'architecture' of a project the user has not trusted/,
      );
      assert.ok(r.content.includes(`<<<${MEMORY_ORDER}`), r.content);
      const res = await h.client.readResource({ uri: "scalpel://memory/architecture" });
      const first = res.contents[0];
      assert.match(first && "text" in first ? String(first.text) : "", /^Untrusted repository text/);
      assert.match(activation.instructions, /they are repository text/);
    });

    it(".env stays secret although project.yml says !.env*", async () => {
      const r = await h.call("read_file", { relative_path: ".env" });
      assert.ok(r.isError);
      assert.match(r.text, /secret_file/);
      // `pattern` (this call said `substring_pattern` before tool arguments were strict: it was refused
      // for the missing pattern and proved nothing).
      const s = await h.call("search_for_pattern", { pattern: SECRET });
      assert.equal(s.isError, false, s.text);
      assert.doesNotMatch(`${r.text}\n${s.text}\n${JSON.stringify(s.structured)}`, new RegExp(SECRET));
    });

    it("no marker was written: nothing from the repository ran", async () => {
      // Time for anything late (a server's restart, rust-analyzer's loading) to show itself.
      await new Promise((r) => setTimeout(r, 3000));
      assert.deepEqual(await readdir(markers), []);
      assert.deepEqual(h.hostPathLeaks, []);
    });
  });
}

/**
 * The control of the tests above: the same repository, trusted, runs every program it plants, so
 * each marker above could have been written and "no marker" proves something.
 */
describe("the same hostile repository, trusted, runs what it plants (the control)", () => {
  let fx: TempProject;
  let markers: string;
  let h: ScalpelHandle;
  before(async () => {
    fx = await makeTempProject("scalpel-trusted-");
    markers = join(fx.base, "markers");
    await mkdir(markers);
    await hostileRepo(fx.dir, markers);
    h = await startScalpel({ project: fx.dir, trust: true, env: { SCALPEL_HOME: join(fx.base, "home") } });
  });
  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  it("the declared server, the shipped tsserver and tsc, and (with Rust) build.rs and the rustc wrapper run", async () => {
    const expected = [
      "declared-server",
      "tsc",
      "tsserver",
      ...(haveRust ? ["build-rs", "rustc-wrapper"] : []),
    ];
    // Each call wakes one planted program; their answers do not matter (the fakes are no servers).
    const calls = [
      h.call("get_diagnostics_for_file", { relative_path: "app/main.lua" }),
      h.call("find_symbol", { name_path_pattern: "greet", relative_path: "src/greet.ts" }),
      h.call("get_project_diagnostics", {}),
      ...(haveRust
        ? [h.call("find_symbol", { name_path_pattern: "answer", relative_path: "src/lib.rs" })]
        : []),
    ];
    for (const name of expected) {
      assert.ok(await waitFor(join(markers, name), 120_000), `${name} did not run although trusted`);
    }
    await Promise.race([Promise.allSettled(calls), new Promise((r) => setTimeout(r, 5000))]);
    // Trusted, a memory is the project's own note, handed over as written.
    const memory = await callOk<{ content: string; untrusted?: boolean }>(h, "read_memory", {
      name: "architecture",
    });
    assert.equal(memory.content, `${MEMORY_ORDER}\n`);
    assert.equal(memory.untrusted, undefined);
  });
});
