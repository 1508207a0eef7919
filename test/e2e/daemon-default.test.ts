// @alone it counts the daemon's processes and stops every daemon of its homes
// @tsserver-only it counts typescript-language-server processes; what the daemon shares is backend-blind
/**
 * Issue 22, the daemon as the default: `scalpel mcp` with no flag nor SCALPEL_DAEMON relays to the
 * per-user daemon; an `--http` session is served by the same daemon (one server tree with a stdio
 * session on the same project); a client whose environment changes what servers run gets a daemon
 * of its own, never the other's; and a session whose daemon cannot be reached (its folder open to
 * others) is served in-process, saying so, unless --daemon asked for the daemon.
 */
import { strict as assert } from "node:assert";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { descendants, processState } from "../../src/process/tree.js";
import { copyFixture, type TempProject } from "../helpers/fixtures.js";
import { CALL_TIMEOUT_MS, call, cliPath, type ScalpelHandle, startScalpel } from "../helpers/mcp.js";
import { rawRequest } from "../helpers/raw-http.js";
import { sdkClient } from "../helpers/sdk-client.js";

const homes: string[] = [];
const fixtures: TempProject[] = [];
const handles: ScalpelHandle[] = [];
const children: ChildProcess[] = [];

/** The environment of a default session: no SCALPEL_DAEMON at all (startScalpel's "default" drops it). */
function home(extra: Record<string, string> = {}): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), "scalpel-dd-"));
  homes.push(dir);
  return { SCALPEL_HOME: dir, SCALPEL_KEEP_WARM: "1", SCALPEL_DAEMON_IDLE: "5", ...extra };
}

function cli(args: string[], env: Record<string, string>) {
  const clean = { ...process.env, ...env };
  delete clean.SCALPEL_DAEMON;
  return spawnSync(process.execPath, [cliPath, ...args], { env: clean, encoding: "utf8" });
}

/** Each daemon `scalpel daemon status` lists: its pid and session count. */
function daemons(env: Record<string, string>): Array<{ pid: number; sessions: number; mine: boolean }> {
  return [
    ...cli(["daemon", "status"], env).stdout.matchAll(
      /daemon: pid (\d+), .*?\((this|another) environment's\), (\d+) sessions?/g,
    ),
  ].map((m) => ({ pid: Number(m[1]), mine: m[2] === "this", sessions: Number(m[3]) }));
}

const alive = (pid: number) => {
  const state = processState(pid);
  return state !== undefined && state !== "Z";
};

async function until(what: string, ok: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(100);
  }
}

async function session(fx: TempProject, env: Record<string, string>): Promise<ScalpelHandle> {
  const h = await startScalpel({ project: fx.dir, env, via: "default" });
  handles.push(h);
  return h;
}

after(async () => {
  await Promise.all(handles.map((h) => h.close().catch(() => undefined)));
  for (const child of children) child.kill("SIGTERM");
  for (const dir of homes) {
    cli(["daemon", "stop"], { SCALPEL_HOME: dir });
    rmSync(dir, { recursive: true, force: true });
  }
  await Promise.all(fixtures.map((fx) => fx.cleanup()));
});

/** `scalpel mcp --http 0` through the default path; resolves its port. */
async function serveHttp(fx: TempProject, env: Record<string, string>, args: string[] = []): Promise<number> {
  const clean: NodeJS.ProcessEnv = { ...process.env, ...env, SCALPEL_HTTP_TOKEN: "token-of-the-daemon-test" };
  delete clean.SCALPEL_DAEMON;
  const child = spawn(
    process.execPath,
    [cliPath, "mcp", "--http", "0", "--project", fx.dir, "--trust", ...args],
    {
      env: clean,
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  children.push(child);
  let stderr = "";
  return new Promise((resolve, reject) => {
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (s: string) => {
      stderr += s;
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(stderr);
      if (m) resolve(Number(m[1]));
    });
    child.once("exit", (code) => reject(new Error(`scalpel --http exited (${code}):\n${stderr}`)));
  });
}

const auth = { Authorization: "Bearer token-of-the-daemon-test" };

function deleteSession(port: number, sessionId: string): Promise<number> {
  return rawRequest(port, "DELETE", {
    ...auth,
    "Mcp-Session-Id": sessionId,
    "Mcp-Protocol-Version": "2025-06-18",
  }).then((a) => a.status);
}

describe("daemon as the default (e2e)", () => {
  it("stdio sessions and an --http session on one project share the default daemon and its one server tree", async () => {
    const fx = await copyFixture("ts-basic");
    fixtures.push(fx);
    const env = home();
    const [a, b] = await Promise.all([session(fx, env), session(fx, env)]);
    assert.match(a.stderr, /relaying stdio to the per-user daemon/, "no flag, no SCALPEL_DAEMON: the daemon");
    const port = await serveHttp(fx, env);
    const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
      requestInit: { headers: { Authorization: "Bearer token-of-the-daemon-test" } },
    });
    const web = sdkClient("scalpel-e2e-http");
    await web.connect(transport, { timeout: CALL_TIMEOUT_MS });
    const args = { name_path: "Money", relative_path: "src/money.ts" };
    const viaStdio = await a.call("find_referencing_symbols", args);
    assert.equal(viaStdio.isError, false, viaStdio.text);
    await web.listTools();
    const viaHttp = await call(web, "find_referencing_symbols", args);
    assert.equal(viaHttp.isError, false, viaHttp.text);
    assert.deepEqual(viaHttp.structured, viaStdio.structured, "the same answer over HTTP");
    assert.equal((await b.call("list_dir", { relative_path: "src" })).isError, false);

    const [daemon, ...others] = daemons(env);
    assert.ok(daemon, "a daemon runs");
    assert.deepEqual(others, [], "one daemon");
    assert.equal(daemon.sessions, 3, "two stdio sessions and the HTTP one");
    const tsls = (descendants(daemon.pid) ?? []).filter((p) =>
      /typescript-language-server/.test(p.commandLine),
    );
    assert.equal(tsls.length, 1, "one typescript-language-server for the three sessions");
    const doctor = cli(["doctor"], env).stdout;
    assert.match(
      doctor,
      new RegExp(`daemon: pid ${daemon.pid}, .* 3 sessions, \\d+ MB \\(servers \\d+ MB\\)`),
    );
    assert.match(doctor, / {2}project \S+: 3 sessions, servers: typescript/);

    // DELETE /mcp: the HTTP session ends, and with it its connection to the daemon. On a fresh
    // connection: the SDK's reuses a kept-alive socket, which the server may close (its 5 s idle) as
    // the request goes out on a loaded machine ("other side closed", seen once).
    assert.equal(await deleteSession(port, transport.sessionId!), 200);
    await web.close();
    await until("the HTTP session let go of its share", () => daemons(env)[0]?.sessions === 2);
    const still = await a.call("find_symbol", { name_path_pattern: "Money" });
    assert.equal(still.isError, false, still.text);
  });

  it("a client whose environment changes what servers run gets a daemon of its own beside the other", async () => {
    const fx = await copyFixture("ts-basic");
    fixtures.push(fx);
    const env = home();
    const first = await session(fx, env);
    const other = await session(fx, { ...env, SCALPEL_TOOL_TIMEOUT: "170" });
    for (const h of [first, other])
      assert.equal((await h.call("list_dir", { relative_path: "." })).isError, false);
    const listed = daemons(env);
    assert.equal(listed.length, 2, `two daemons:\n${cli(["daemon", "status"], env).stdout}`);
    assert.deepEqual(
      listed.map((d) => [d.mine, d.sessions]).sort(),
      [
        [false, 1],
        [true, 1],
      ],
      "each serves its own environment's session",
    );
    // `scalpel daemon stop` stops every daemon of this build, whatever its environment.
    assert.match(cli(["daemon", "stop"], env).stdout, /stopped the daemon[\s\S]*stopped the daemon/);
    await until("both daemons exited", () => listed.every((d) => !alive(d.pid)));
  });

  it("a daemon folder others may open: the default session is served in-process and says so; --daemon refuses", async () => {
    const fx = await copyFixture("ts-basic");
    fixtures.push(fx);
    const env = home();
    mkdirSync(join(env.SCALPEL_HOME!, "daemon"), { recursive: true });
    chmodSync(join(env.SCALPEL_HOME!, "daemon"), 0o755);
    const h = await session(fx, env);
    assert.match(h.stderr, /daemon_refused|another user or others may open it/);
    assert.match(h.stderr, /serving this session in-process/);
    const r = await h.call("find_symbol", { name_path_pattern: "Money" });
    assert.equal(r.isError, false, r.text);
    const clean = { ...process.env, ...env };
    delete clean.SCALPEL_DAEMON;
    const asked = spawnSync(process.execPath, [cliPath, "mcp", "--daemon", "--project", fx.dir], {
      env: clean,
      encoding: "utf8",
      input: "",
      timeout: 30_000,
    });
    assert.equal(asked.status, 1, asked.stderr);
    assert.match(asked.stderr, /Error \(daemon_unavailable\): --daemon .* no daemon could be reached/);
    // Over HTTP the same refusal reaches the client as 503 with the reason and what to do, not a 500.
    const port = await serveHttp(fx, env, ["--daemon"]);
    const refused = await rawRequest(port, "POST", auth);
    assert.equal(refused.status, 503, refused.body);
    assert.match(refused.body, /no daemon could be reached.*--no-daemon.*daemon_unavailable/);
    assert.ok(!refused.body.includes(env.SCALPEL_HOME!), "no host path in the refusal");
  });
});
