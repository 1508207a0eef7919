// @alone it counts the processes its sessions start and listens on a port
// @tsserver-only scalpel's own behaviour (protocol, limits, security), not the server's: one backend is enough
/**
 * `scalpel mcp --http`: the built CLI served over Streamable HTTP, driven by the official SDK
 * client. What must hold (issue #10):
 * - no token or a wrong one → 401; a foreign Host or Origin (DNS rebinding) → 403;
 * - two MCP sessions with different projects stay apart (each has its own workspace and servers);
 * - closing a session stops its language servers and leaves the other session's running;
 * - SIGKILL of scalpel leaves no process behind.
 */
import { strict as assert } from "node:assert";
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { copyFixture, type TempProject } from "../helpers/fixtures.js";
import {
  assertCliBuilt,
  CALL_TIMEOUT_MS,
  call,
  cliPath,
  descendants,
  isAlive,
  waitForExit,
} from "../helpers/mcp.js";
import { rawRequest } from "../helpers/raw-http.js";
import { sdkClient } from "../helpers/sdk-client.js";

const token = "test-token-4f1c2a";

interface Served {
  child: ChildProcess;
  port: number;
  stderr: () => string;
}

/** Starts `scalpel mcp --http 0` and reads the port it printed on stderr. */
async function serve(args: string[], env: Record<string, string>): Promise<Served> {
  assertCliBuilt();
  const child = spawn(process.execPath, [cliPath, "mcp", "--http", "0", ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no port printed; stderr:\n${stderr}`)), 30_000);
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      stderr += chunk;
      const m = /listening on http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(stderr);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once("exit", (code) => reject(new Error(`scalpel exited (${code}); stderr:\n${stderr}`)));
  });
  return { child, port, stderr: () => stderr };
}

/** A raw POST of an initialize request with the given headers; resolves the status code. */
async function rawInitialize(port: number, headers: Record<string, string>): Promise<number> {
  return (await rawRequest(port, "POST", headers)).status;
}

async function connect(port: number): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = sdkClient("scalpel-http-e2e");
  await client.connect(transport, { timeout: CALL_TIMEOUT_MS });
  await client.listTools();
  return { client, transport };
}

interface Config {
  project: { name: string } | null;
  servers: Array<{ language: string; status: string; pid?: number }>;
}

/** The typescript server's pid once it answered something only it can answer. */
async function warmTypeScript(client: Client, namePath: string, file: string): Promise<number> {
  const refs = await call<{ complete: boolean }>(client, "find_referencing_symbols", {
    name_path: namePath,
    relative_path: file,
  });
  assert.equal(refs.isError, false, refs.text);
  const config = await call<Config>(client, "get_current_config");
  const pid = config.structured.servers.find((s) => s.language === "typescript")?.pid;
  assert.equal(typeof pid, "number", JSON.stringify(config.structured.servers));
  return pid!;
}

describe("Streamable HTTP (e2e)", () => {
  let a: TempProject;
  let b: TempProject;
  let home: string;
  let served: Served | undefined;

  before(async () => {
    a = await copyFixture("ts-basic");
    b = await copyFixture("ts-decls");
    home = await mkdtemp(join(tmpdir(), "scalpel-http-home-"));
    await mkdir(home, { recursive: true });
    // The second project is one the user registered, so a session may activate it by name.
    await writeFile(join(home, "projects.json"), JSON.stringify({ projects: { other: { root: b.dir } } }));
    served = await serve(["--project", a.dir], { SCALPEL_HOME: home, SCALPEL_HTTP_TOKEN: token });
  });

  after(async () => {
    if (served && served.child.exitCode === null) served.child.kill("SIGKILL");
    await a?.cleanup();
    await b?.cleanup();
    await rm(home, { recursive: true, force: true });
  });

  it("refuses requests without the bearer token (401) and from foreign hosts or origins (403)", async () => {
    const port = served!.port;
    assert.equal(await rawInitialize(port, {}), 401);
    assert.equal(await rawInitialize(port, { Authorization: "Bearer wrong-token-00000" }), 401);
    const auth = { Authorization: `Bearer ${token}` };
    assert.equal(await rawInitialize(port, { ...auth, Host: `evil.example:${port}` }), 403);
    assert.equal(await rawInitialize(port, { ...auth, Origin: "http://evil.example" }), 403);
    // The same request with the token and our own host and origin gets through.
    assert.equal(await rawInitialize(port, { ...auth, Origin: `http://localhost:${port}` }), 200);
    assert.doesNotMatch(served!.stderr(), /at .*\.js:\d+/, "no stack trace logged for refused requests");
  });

  it("keeps two sessions apart and stops a closed session's servers only", async () => {
    const port = served!.port;
    const one = await connect(port);
    const two = await connect(port);
    try {
      const pidOne = await warmTypeScript(one.client, "Money/multiplyByRate", "src/money.ts");
      const activated = await call(two.client, "activate_project", { project: "other" });
      assert.equal(activated.isError, false, activated.text);
      const configTwo = await call<Config>(two.client, "get_current_config");
      const configOne = await call<Config>(one.client, "get_current_config");
      // (Both copies are named "project": what tells them apart is their content.)
      assert.ok(configOne.structured.project && configTwo.structured.project);
      // Each session's symbols come from its own project.
      const inOne = await call(one.client, "find_file", { file_mask: "money.ts", relative_path: "." });
      const inTwo = await call(two.client, "find_file", { file_mask: "money.ts", relative_path: "." });
      assert.match(inOne.text, /money\.ts/);
      assert.doesNotMatch(inTwo.text, /money\.ts/);
      const tree = [pidOne, ...descendants(pidOne)];
      assert.ok(tree.every(isAlive));

      await one.transport.terminateSession();
      await one.client.close();
      const survivors = await waitForExit(tree, 10_000);
      assert.deepEqual(survivors, [], "the closed session's language servers are gone");
      // The other session still answers.
      const still = await call(two.client, "get_current_config");
      assert.equal(still.isError, false, still.text);
    } finally {
      await one.client.close().catch(() => undefined);
      await two.client.close().catch(() => undefined);
    }
  });

  it("closes an idle session with its language servers", async () => {
    const idle = await serve(["--project", a.dir], {
      SCALPEL_HOME: home,
      SCALPEL_HTTP_TOKEN: token,
      SCALPEL_HTTP_IDLE_S: "2",
    });
    try {
      const one = await connect(idle.port);
      const pid = await warmTypeScript(one.client, "Money/multiplyByRate", "src/money.ts");
      const tree = [pid, ...descendants(pid)];
      const survivors = await waitForExit(tree, 15_000);
      assert.deepEqual(survivors, [], "an idle session's servers are stopped");
      const after = await call(one.client, "get_current_config").then(
        () => "answered",
        (e: unknown) => String(e),
      );
      assert.match(after, /Unknown or expired session/, "the idle session is gone");
      await one.client.close().catch(() => undefined);
    } finally {
      idle.child.kill("SIGKILL");
    }
  });

  it("30 bare sessions at once: the cap refuses the excess with 429, and no server starts before a tool needs one", async () => {
    // Stand-ins for the other languages' servers, which write a line each time they are run: a
    // session of this TypeScript project has no reason to run them (a background symbol index
    // build once ran `rust-analyzer --version` and `gopls version` synchronously, seen in CI).
    const probes = join(home, "probes");
    const ran = join(probes, "ran.log");
    await mkdir(probes, { recursive: true });
    for (const name of ["rust-analyzer", "gopls"]) {
      await writeFile(join(probes, name), `#!/bin/sh\necho ${name} >> '${ran}'\nexit 1\n`, { mode: 0o755 });
    }
    const capped = await serve(["--project", a.dir], {
      SCALPEL_HOME: home,
      SCALPEL_HTTP_TOKEN: token,
      SCALPEL_HTTP_MAX_SESSIONS: "5",
      SCALPEL_RUST_ANALYZER: join(probes, "rust-analyzer"),
      SCALPEL_GOPLS: join(probes, "gopls"),
    });
    const auth = { Authorization: `Bearer ${token}` };
    try {
      const answers = await Promise.all(
        Array.from({ length: 30 }, () => rawRequest(capped.port, "POST", auth)),
      );
      const open = answers.filter((r) => r.status === 200);
      const refused = answers.filter((r) => r.status === 429);
      assert.equal(open.length, 5, answers.map((r) => r.status).join(" "));
      assert.equal(refused.length, 25);
      assert.match(refused[0]!.body, /limit \(SCALPEL_HTTP_MAX_SESSIONS\)\. Close one/);
      assert.deepEqual(descendants(capped.child.pid!), [], "five initialized sessions started no process");
      // The sessions' background work (the language count, the symbol index build) runs within
      // this window; a probe it ran would have left its line.
      await new Promise((r) => setTimeout(r, 1000));
      assert.equal(
        existsSync(ran),
        false,
        `a session ran ${existsSync(ran) ? readFileSync(ran, "utf8") : ""}`,
      );
      // One closed session makes room for a client that works.
      const closed = await rawRequest(capped.port, "DELETE", {
        ...auth,
        "mcp-session-id": open[0]!.sessionId!,
      });
      assert.equal(closed.status, 200, closed.body);
      const one = await connect(capped.port);
      try {
        const config = await call<Config>(one.client, "get_current_config");
        const ts = config.structured.servers.find((x) => x.language === "typescript");
        assert.ok(
          ts && ts.pid === undefined,
          `not started by initialize: ${JSON.stringify(config.structured.servers)}`,
        );
        assert.deepEqual(descendants(capped.child.pid!), [], "still no language server");
        // The control: the first tool that needs the server starts it.
        const pid = await warmTypeScript(one.client, "Money/multiplyByRate", "src/money.ts");
        assert.ok(descendants(capped.child.pid!).includes(pid));
      } finally {
        await one.client.close().catch(() => undefined);
      }
    } finally {
      capped.child.kill("SIGKILL");
    }
  });

  it("leaves no process behind when scalpel is SIGKILLed", async () => {
    const s = served!;
    const one = await connect(s.port);
    await warmTypeScript(one.client, "Money/multiplyByRate", "src/money.ts");
    const pid = s.child.pid!;
    const tree = descendants(pid);
    assert.ok(tree.length >= 2, `typescript-language-server and tsserver at least: ${tree}`);
    s.child.kill("SIGKILL");
    const survivors = await waitForExit([pid, ...tree], 10_000);
    assert.deepEqual(survivors, []);
    await one.client.close().catch(() => undefined);
  });
});
