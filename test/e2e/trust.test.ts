// @alone it trusts projects or reads trust in the tests' default SCALPEL_HOME, shared in a group
/**
 * Project trust over the built CLI, driven by the SDK client: after `scalpel trust` a declared
 * server runs; editing its command withdraws that trust; `--trust` lasts one session; what may be
 * activated at all. (The hostile repository is trust-hostile.test.ts.) Every run has its own
 * SCALPEL_HOME, so the user's real trust store is never read or written.
 */
import { strict as assert } from "node:assert";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { makeTempProject, type TempProject } from "../helpers/fixtures.js";
import { callOk, type ScalpelHandle, startScalpel } from "../helpers/mcp.js";
import { type Activation, cli, declaredServer, waitFor, write } from "../helpers/trust-repo.js";

describe("trusting a project, and a config change withdrawing it", () => {
  let fx: TempProject;
  let home: string;
  let markers: string;
  let h: ScalpelHandle | undefined;

  before(async () => {
    fx = await makeTempProject("scalpel-trust-flow-");
    home = join(fx.base, "home");
    markers = join(fx.base, "markers");
    await mkdir(markers);
    await write(fx.dir, ".scalpel/project.yml", declaredServer(join(markers, "first")));
    await write(fx.dir, "app/main.py", "def main():\n    return 1\n");
  });

  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  it("after `scalpel trust` the declared server runs", async () => {
    const t = cli(["trust", fx.dir], { SCALPEL_HOME: home });
    assert.equal(t.status, 0, t.out);
    assert.match(t.out, /is trusted/);
    assert.match(t.out, /python server declared in \.scalpel\/project\.yml: \/bin\/sh -c/);
    // What trust enables comes from the adapters of the languages found: no Rust or Go here.
    assert.doesNotMatch(t.out, /rust-analyzer|cargo|gopls|TypeScript/);
    h = await startScalpel({ project: fx.dir, trust: false, env: { SCALPEL_HOME: home } });
    const a = await callOk<Activation>(h, "activate_project", { project: fx.dir });
    assert.equal(a.trust.state, "trusted");
    assert.ok(await waitFor(join(markers, "first"), 15_000), "the trusted declared server did not run");
  });

  it("editing its command withdraws the trust: the new command does not run", async () => {
    await write(fx.dir, ".scalpel/project.yml", declaredServer(join(markers, "second")));
    const a = await callOk<Activation>(h!, "activate_project", { project: fx.dir });
    assert.equal(a.trust.trusted, false);
    assert.equal(a.trust.state, "changed");
    assert.match(a.instructions, /changed since/);
    await h!.close();
    h = await startScalpel({ project: fx.dir, trust: false, env: { SCALPEL_HOME: home } });
    await callOk(h, "get_current_config");
    await new Promise((r) => setTimeout(r, 2000));
    assert.equal(existsSync(join(markers, "second")), false, "an edited, untrusted command ran");
    const doctor = cli(["doctor", "--project", fx.dir], { SCALPEL_HOME: home });
    assert.match(doctor.out, /changed since: not trusted now/);
    assert.match(doctor.out, /start the language server declared in \.scalpel\/project\.yml \(python\)/);
  });

  it("--trust trusts the --project for the session only", async () => {
    await h?.close();
    h = await startScalpel({ project: fx.dir, env: { SCALPEL_HOME: join(fx.base, "other-home") } });
    const a = await callOk<Activation>(h, "activate_project", { project: fx.dir });
    assert.equal(a.trust.state, "session");
    assert.ok(
      await waitFor(join(markers, "second"), 15_000),
      "the session-trusted declared server did not run",
    );
    assert.equal(existsSync(join(fx.base, "other-home", "trust.json")), false);
  });
});

describe("what may be activated", () => {
  let fx: TempProject;
  let h: ScalpelHandle;

  before(async () => {
    fx = await makeTempProject("scalpel-allowed-");
    await mkdir(join(fx.base, "elsewhere"));
    h = await startScalpel({ project: fx.dir, env: { SCALPEL_HOME: join(fx.base, "home") } });
  });

  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  it("/, /etc and the home folder are refused with an error that says what to do", async () => {
    for (const dir of ["/", "/etc", homedir(), "/usr/lib"]) {
      const r = await h.call("activate_project", { project: dir });
      assert.ok(r.isError, `${dir} was activated`);
      assert.match(
        r.text,
        /Error \(project_not_allowed\): This directory cannot be activated: .*Activate the project's own root/,
      );
    }
    // Still the --project: the refusals changed nothing.
    const c = await callOk<{ project: { name: string } | null }>(h, "get_current_config");
    assert.equal(c.project?.name, "project");
  });

  it("an unregistered directory is refused until the user registers it", async () => {
    const r = await h.call("activate_project", { project: join(fx.base, "elsewhere") });
    assert.ok(r.isError);
    assert.match(r.text, /project_not_allowed.*scalpel register PATH/);
    assert.doesNotMatch(r.text, new RegExp(fx.base), "the refusal names no host path of its own");
    const reg = cli(["register", join(fx.base, "elsewhere")], { SCALPEL_HOME: join(fx.base, "home") });
    assert.equal(reg.status, 0, reg.out);
    const a = await callOk<Activation>(h, "activate_project", { project: "elsewhere" });
    assert.equal(a.name, "elsewhere");
    assert.equal(a.trust.trusted, false);
  });

  it("activate_project is annotated as not read-only, and stays available with --read-only", async () => {
    const tools = await h.client.listTools();
    const t = tools.tools.find((x) => x.name === "activate_project");
    assert.equal(t?.annotations?.readOnlyHint, false);
    const ro = await startScalpel({
      project: fx.dir,
      args: ["--read-only"],
      env: { SCALPEL_HOME: join(fx.base, "home") },
    });
    try {
      const names = (await ro.client.listTools()).tools.map((x) => x.name);
      assert.ok(names.includes("activate_project"));
      assert.ok(!names.includes("create_text_file"));
    } finally {
      await ro.close();
    }
  });

  it("unknown options and bad values are errors that list the valid ones", () => {
    const bad = cli(["mcp", "--project", fx.dir, "--readonly"], {});
    assert.equal(bad.status, 2);
    assert.match(
      bad.out,
      /Unknown option --readonly for 'mcp'\. Did you mean --read-only\? Valid options: --project PATH, --read-only/,
    );
    const value = cli(["mcp", "--read-only=false"], {});
    assert.equal(value.status, 2);
    assert.match(value.out, /--read-only takes no value/);
    const missing = cli(["doctor", "--project"], {});
    assert.equal(missing.status, 2);
    assert.match(missing.out, /--project needs a value/);
  });
});
