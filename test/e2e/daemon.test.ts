// @alone it counts the machine's processes (the daemon's tree, and that nothing is left of it)
// @tsserver-only it counts typescript-language-server processes under the daemon; what the daemon shares is backend-blind
/**
 * Issue 22's opt-in daemon (`scalpel mcp --daemon`), through the SDK client over stdio: sessions on
 * one project share one language-server tree, edits of two sessions never lose each other, per-
 * session --read-only holds on a shared project, a daemon killed mid-call gives that call an error
 * at once and the next call a new daemon, and a client of another build never joins. Each test has
 * its own SCALPEL_HOME (so its own daemon) and short bounds.
 */
import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { descendants, processState } from "../../src/process/tree.js";
import { copyFixture, readText, runTsc, type TempProject } from "../helpers/fixtures.js";
import { cliPath, type ScalpelHandle, startScalpel } from "../helpers/mcp.js";
import { editJobsFor as jobsFor } from "../helpers/parallel-edit-jobs.js";

const homes: string[] = [];
const fixtures: TempProject[] = [];
const handles: ScalpelHandle[] = [];

function daemonEnv(extra: Record<string, string> = {}): Record<string, string> {
  const home = mkdtempSync(join(tmpdir(), "scalpel-daemon-home-"));
  homes.push(home);
  return { SCALPEL_HOME: home, SCALPEL_KEEP_WARM: "1", SCALPEL_DAEMON_IDLE: "5", ...extra };
}

async function fixture(name: string): Promise<TempProject> {
  const fx = await copyFixture(name);
  fixtures.push(fx);
  return fx;
}

async function session(
  fx: TempProject,
  env: Record<string, string>,
  args: string[] = [],
): Promise<ScalpelHandle> {
  const h = await startScalpel({ project: fx.dir, args: ["--daemon", ...args], env });
  handles.push(h);
  return h;
}

/** `scalpel daemon status` (the lines `scalpel doctor` ends with). */
function daemonStatus(env: Record<string, string>): { pid?: number; sessions?: number; text: string } {
  const r = spawnSync(process.execPath, [cliPath, "daemon", "status"], {
    env: { ...process.env, ...env },
    encoding: "utf8",
  });
  const m = /daemon: pid (\d+), .*?, (\d+) sessions?/.exec(r.stdout);
  return m ? { pid: Number(m[1]), sessions: Number(m[2]), text: r.stdout } : { text: r.stdout };
}

/** The daemons' stderr, for a failure's message. */
function daemonLog(env: Record<string, string>): string {
  const dir = join(env.SCALPEL_HOME!, "daemon");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".log"))
    .map((f) => readFileSync(join(dir, f), "utf8").slice(-3000))
    .join("\n");
}

const daemonPid = (env: Record<string, string>) => daemonStatus(env).pid;

const alive = (pid: number) => {
  const state = processState(pid);
  return state !== undefined && state !== "Z";
};

function serversUnder(pid: number): number[] {
  return (descendants(pid) ?? [])
    .filter((p) => /typescript-language-server|tsserver/.test(p.commandLine) && p.state !== "Z")
    .map((p) => p.pid);
}

async function until(what: string, ok: () => boolean, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(100);
  }
}

after(async () => {
  await Promise.all(handles.map((h) => h.close().catch(() => undefined)));
  for (const home of homes) {
    const env = { SCALPEL_HOME: home };
    spawnSync(process.execPath, [cliPath, "daemon", "stop"], { env: { ...process.env, ...env } });
    spawnSync(process.execPath, [cliPath, "daemon", "stop"], {
      env: { ...process.env, ...env, SCALPEL_DAEMON_BUILD_TAG: "other-build" },
    });
    rmSync(home, { recursive: true, force: true });
  }
  await Promise.all(fixtures.map((fx) => fx.cleanup()));
});

describe("daemon (e2e, opt-in --daemon)", () => {
  it("two sessions share one server tree and race 20 edits safely; bounds end servers, then the daemon", async (t) => {
    const fx = await fixture("ts-parallel");
    const env = daemonEnv();
    // Both at once: the start lock lets one of them start the daemon, the other joins it.
    const [a, b] = await Promise.all([session(fx, env), session(fx, env)]);
    const pid = daemonPid(env);
    assert.ok(pid !== undefined, "a daemon runs");
    const dir = join(env.SCALPEL_HOME!, "daemon");
    const socket = readdirSync(dir).find((f) => f.endsWith(".sock"))!;
    assert.equal(statSync(dir).mode & 0o777, 0o700, "the folder is the user's alone");
    assert.equal(statSync(join(dir, socket)).mode & 0o777, 0o600, "so is the socket");
    assert.equal(daemonLog(env).match(/daemon \(\w+\) listening/g)?.length, 1, "one daemon was started");
    for (const h of [a, b]) {
      const r = await h.call("get_symbols_overview", { relative_path: "src/alpha.ts" });
      assert.equal(r.isError, false, r.text);
    }
    const tsls = (descendants(pid) ?? []).filter((p) => /typescript-language-server/.test(p.commandLine));
    assert.equal(
      tsls.length,
      1,
      `one typescript-language-server for both sessions:\n${tsls.map((p) => p.commandLine).join("\n")}`,
    );
    const tree = serversUnder(pid);

    const jobs = [...jobsFor("alpha"), ...jobsFor("beta"), ...jobsFor("gamma")].slice(0, 20);
    const results = await Promise.all(jobs.map((j, k) => (k % 2 === 0 ? a : b).call(j.tool, j.args)));
    const problems: string[] = [];
    let applied = 0;
    for (const [k, r] of results.entries()) {
      const j = jobs[k]!;
      const onDisk = (await readText(fx.dir, j.file)).includes(j.marker);
      if (!r.isError) {
        applied++;
        if (!onDisk) problems.push(`${j.marker}: reported applied, missing from disk`);
      } else if (!/^Error \(edit_conflict\)/.test(r.text)) problems.push(`${j.marker}: ${r.text}`);
      else if (onDisk) problems.push(`${j.marker}: an edit_conflict wrote its text`);
    }
    t.diagnostic(`${applied} of 20 edits from two sessions applied`);
    assert.deepEqual(problems, []);
    assert.ok(applied >= 10, `only ${applied} edits landed`);
    const tsc = runTsc(fx.dir);
    assert.equal(tsc.status, 0, tsc.output);

    await a.close();
    const still = await b.call("find_symbol", { name_path_pattern: "alpha0" });
    assert.equal(still.isError, false, still.text);
    await b.close();
    // Keep-warm 1 s, idle 5 s: the servers go first, the daemon after.
    await until("the project's servers stopped", () => serversUnder(pid).length === 0);
    assert.ok(alive(pid), "the daemon outlives the keep-warm bound");
    await until("the daemon exited", () => !alive(pid));
    assert.deepEqual(tree.filter(alive), [], "no process of the daemon's tree is left");
  });

  it("a --read-only session lists no writing tool and cannot write; a writing one on the same project can", async () => {
    const fx = await fixture("ts-parallel");
    const env = daemonEnv();
    const reader = await session(fx, env, ["--read-only"]);
    // Opted in through the environment instead of --daemon: the same daemon.
    const writer = await startScalpel({ project: fx.dir, env: { ...env, SCALPEL_DAEMON: "1" } });
    handles.push(writer);
    const names = (await reader.client.listTools()).tools.map((tool) => tool.name);
    assert.ok(!names.includes("replace_content") && !names.includes("rename_symbol"), names.join(","));
    assert.ok((await writer.client.listTools()).tools.some((tool) => tool.name === "replace_content"));
    const edit = { relative_path: "src/alpha.ts", needle: "// slot-alpha-5", replacement: "// written" };
    const refused = await reader.call("replace_content", edit);
    assert.equal(refused.isError, true);
    assert.ok(!(await readText(fx.dir, "src/alpha.ts")).includes("// written"));
    const done = await writer.call("replace_content", edit);
    assert.equal(done.isError, false, done.text);
    assert.ok((await readText(fx.dir, "src/alpha.ts")).includes("// written"));
    assert.equal(daemonStatus(env).sessions, 2, daemonStatus(env).text);
    // A client that vanishes (its relay killed) frees its share at once; the other session goes on.
    process.kill(reader.pid, "SIGKILL");
    await until("the vanished session was let go", () => daemonStatus(env).sessions === 1);
    const after = await writer.call("read_file", { relative_path: "src/alpha.ts" });
    assert.equal(after.isError, false, after.text);
  });

  it("a daemon killed during find_referencing_symbols: an error result within 5 s, then a new daemon answers", async () => {
    const fx = await fixture("ts-basic");
    const env = daemonEnv();
    // No --project: activate_project opens it, which the relay must do again on a new daemon.
    const h = await startScalpel({ cwd: fx.base, args: ["--daemon"], env });
    handles.push(h);
    const activated = await h.call("activate_project", { project: fx.dir });
    assert.equal(activated.isError, false, activated.text);
    const args = { name_path: "Money", relative_path: "src/money.ts" };
    const warm = await h.call("find_referencing_symbols", args);
    assert.equal(warm.isError, false, warm.text);
    const pid = daemonPid(env)!;
    const tree = serversUnder(pid);
    const started = Date.now();
    const pending = h.call("find_referencing_symbols", args);
    process.kill(pid, "SIGKILL");
    const lost = await pending;
    assert.ok(Date.now() - started < 5000, `answered after ${Date.now() - started} ms`);
    assert.equal(lost.isError, true, lost.text);
    assert.match(lost.text, /daemon_unavailable/);
    const again = await h.call("find_referencing_symbols", args);
    assert.equal(again.isError, false, `${again.text}\n${h.stderr.slice(-2000)}\n${daemonLog(env)}`);
    assert.deepEqual(again.structured, warm.structured);
    assert.notEqual(daemonPid(env), pid, "a new daemon");
    // The killed daemon's servers see their parent gone and end.
    await until("the killed daemon's servers ended", () => tree.filter(alive).length === 0, 20_000);
  });

  it("a client of another build does not join a running daemon; one of its own starts beside it", async () => {
    const fx = await fixture("ts-parallel");
    const env = daemonEnv();
    const mine = await session(fx, env);
    const other = await session(fx, { ...env, SCALPEL_DAEMON_BUILD_TAG: "other-build" });
    const first = daemonPid(env);
    const second = daemonPid({ ...env, SCALPEL_DAEMON_BUILD_TAG: "other-build" });
    assert.ok(first !== undefined && second !== undefined && first !== second, `${first} vs ${second}`);
    for (const h of [mine, other]) {
      const r = await h.call("list_dir", { relative_path: "src" });
      assert.equal(r.isError, false, r.text);
    }
    // `scalpel daemon stop` stops its own build's daemon only.
    const stop = spawnSync(process.execPath, [cliPath, "daemon", "stop"], {
      env: { ...process.env, ...env, SCALPEL_DAEMON_BUILD_TAG: "other-build" },
      encoding: "utf8",
    });
    assert.match(stop.stdout, new RegExp(`stopped the daemon \\(pid ${second}\\)`));
    await until("the stopped daemon exited", () => !alive(second));
    assert.ok(alive(first), "the other build's daemon runs on");
  });
});
