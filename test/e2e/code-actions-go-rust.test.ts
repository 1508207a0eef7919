/**
 * Code actions on Go and Rust through the SDK client, one server per fixture: gopls' organize
 * imports removes an unused import (`go build` passes after), rust-analyzer's "Import …" quick fix
 * for an unresolved type (offered for the diagnostic's own range, resolved lazily) makes
 * `cargo check` pass. Each is undone byte for byte. Skipped, with the reason, where a server is missing.
 */
import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { lineOf } from "../helpers/anchors.js";
import { copyFixture, hashTree, readText, type TempProject } from "../helpers/fixtures.js";
import { callOk, type EditResult, type ScalpelHandle, startScalpel } from "../helpers/mcp.js";
import { goplsMissing, rustAnalyzerMissing } from "../helpers/servers.js";

function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  const r = spawnSync(command, args, { cwd, encoding: "utf8", env: { ...process.env, ...env } });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

interface Actions {
  actions: Array<{ title: string; kind?: string; fixes?: string[] }>;
}

/** A fixture served alone, its tree hash before, and the check that judges it. */
function suite(
  name: string,
  fixture: string,
  skip: string | undefined,
  body: (ctx: () => { fx: TempProject; h: ScalpelHandle; pristine: Record<string, string> }) => void,
) {
  if (skip) process.stdout.write(`# SKIP ${name}: ${skip}\n`);
  describe(name, { skip: skip ?? false }, () => {
    let fx: TempProject;
    let h: ScalpelHandle;
    let pristine: Record<string, string>;
    before(async () => {
      fx = await copyFixture(fixture);
      pristine = await hashTree(fx.dir);
      h = await startScalpel({ project: fx.dir });
    });
    after(async () => {
      await h?.close();
      await fx?.cleanup();
    });
    body(() => ({ fx, h, pristine }));
  });
}

const goSkip =
  goplsMissing() ?? (spawnSync("go", ["version"]).status === 0 ? undefined : "`go` is not on PATH");
suite("code actions on Go (e2e, gopls)", "go-actions", goSkip, (ctx) => {
  it("organize imports removes the unused import; go build passes; undo restores", async () => {
    const { fx, h, pristine } = ctx();
    const goBuild = () =>
      run("go", ["build", "./..."], fx.dir, { GOFLAGS: "-mod=readonly", GOTOOLCHAIN: "local" });
    assert.notEqual(goBuild().status, 0, "starts with an unused import");
    const at = lineOf(await readText(fx.dir, "report.go"), '"strings"');
    const args = { relative_path: "report.go", start_line: at, kind: "source.organizeImports" };
    const dry = await callOk<EditResult>(h, "apply_code_action", { ...args, dry_run: true });
    assert.match(dry.diff ?? "", /^-\t"strings"$/m);
    assert.deepEqual(await hashTree(fx.dir), pristine);
    const done = await callOk<EditResult>(h, "apply_code_action", args);
    const build = goBuild();
    assert.equal(build.status, 0, build.output);
    await callOk(h, "undo_edit", { edit_id: done.edit_id });
    assert.deepEqual(await hashTree(fx.dir), pristine);
  });

  it("an action that only runs a server command (gopls' 'Browse documentation') is refused, nothing run or written", async () => {
    const { fx, h, pristine } = ctx();
    const listed = await callOk<Actions>(h, "get_code_actions", {
      relative_path: "report.go",
      start_line: 1,
    });
    const browse = listed.actions.find((a) => a.title.startsWith("Browse documentation"));
    assert.ok(browse, JSON.stringify(listed.actions));
    const r = await h.call("apply_code_action", {
      relative_path: "report.go",
      start_line: 1,
      title: browse.title,
    });
    assert.equal(r.isError, true, r.text);
    assert.match(r.text, /not_supported.*'gopls\.doc'.*runs only commands known to send their edit back/s);
    assert.deepEqual(await hashTree(fx.dir), pristine);
  });
});

suite("code actions on Rust (e2e, rust-analyzer)", "rust-actions", rustAnalyzerMissing(), (ctx) => {
  it("the import quick fix for an unresolved type applies; cargo check passes; undo restores", async () => {
    const { fx, h, pristine } = ctx();
    const at = lineOf(await readText(fx.dir, "src/lib.rs"), "-> Money");
    const listed = await callOk<Actions>(h, "get_code_actions", {
      relative_path: "src/lib.rs",
      start_line: at,
    });
    const fix = listed.actions.find((a) => a.title === "Import `crate::money::Money`");
    assert.ok(fix, JSON.stringify(listed.actions));
    assert.ok(
      fix.fixes?.some((f) => f.includes("Money")),
      JSON.stringify(fix),
    );
    const done = await callOk<EditResult>(h, "apply_code_action", {
      relative_path: "src/lib.rs",
      start_line: at,
      title: "Import `crate::money::Money`",
    });
    assert.match(done.diff ?? "", /^\+use crate::money::Money;$/m);
    const check = run("cargo", ["check", "--offline", "--quiet"], fx.dir);
    assert.equal(check.status, 0, check.output);
    await callOk(h, "undo_edit", { edit_id: done.edit_id });
    const now = await hashTree(fx.dir);
    // cargo check writes target/; the sources are what undo restores.
    const sources = (t: Record<string, string>) =>
      Object.fromEntries(Object.entries(t).filter(([k]) => !k.startsWith("target/")));
    assert.deepEqual(sources(now), sources(pristine));
  });
});
