// The daemon's pure parts: its socket folder refuses what is not the user's alone, and shared
// projects are opened once per key, kept warm after their last session, then closed.
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { log } from "../../src/core/log.js";
import { daemonPaths, secureDaemonDir, socketIsPrivate } from "../../src/daemon/paths.js";
import type { Project } from "../../src/project/project.js";
import { SharedProjects } from "../../src/workspace/shared-projects.js";

const home = mkdtempSync(join(tmpdir(), "scalpel-daemon-unit-"));
after(() => rmSync(home, { recursive: true, force: true }));

test("the daemon folder is made 0700; one open to others is refused; a socket path holding a file is refused", () => {
  const paths = daemonPaths({ SCALPEL_HOME: join(home, "a") });
  secureDaemonDir(paths);
  assert.equal(socketIsPrivate(paths), false, "no socket yet");
  writeFileSync(paths.socket, "");
  assert.throws(() => socketIsPrivate(paths), /not a socket/);
  chmodSync(paths.dir, 0o755);
  assert.throws(
    () => secureDaemonDir(paths),
    (e: Error & { code?: string }) => e.code === "daemon_refused",
  );
  const wide = daemonPaths({ SCALPEL_HOME: join(home, "b") });
  mkdirSync(wide.dir, { recursive: true, mode: 0o777 });
  chmodSync(wide.dir, 0o777);
  assert.throws(() => secureDaemonDir(wide), /another user or others may open it/);
});

test("another build has another socket", () => {
  const env = { SCALPEL_HOME: home };
  assert.notEqual(
    daemonPaths(env).socket,
    daemonPaths({ ...env, SCALPEL_DAEMON_BUILD_TAG: "other-build" }).socket,
  );
});

function fakeProject(events: string[]): Project {
  return {
    name: "p",
    secretGate: { close: () => events.push("gate closed") },
    pool: {
      shutdown: async () => {
        events.push("servers stopped");
      },
      startedLanguages: () => ["typescript"],
    },
  } as unknown as Project;
}

test("a shared project is opened once, counted per session, kept warm, then closed", async () => {
  const events: string[] = [];
  const projects = new SharedProjects(50, log);
  let opened = 0;
  const open = () => {
    opened++;
    return fakeProject(events);
  };
  const a = projects.acquire("k", open);
  const b = projects.acquire("k", open);
  assert.equal(opened, 1);
  assert.equal(a.project, b.project);
  assert.deepEqual(projects.info(), [{ name: "p", sessions: 2, servers: ["typescript"] }]);
  a.release();
  a.release();
  assert.equal(projects.info()[0]?.sessions, 1, "release is idempotent");
  b.release();
  // Taken again within the keep-warm bound: the same project, servers untouched.
  const c = projects.acquire("k", open);
  await sleep(80);
  assert.equal(opened, 1);
  assert.deepEqual(events, []);
  c.release();
  await sleep(80);
  assert.deepEqual(events, ["gate closed", "servers stopped"]);
  assert.deepEqual(projects.info(), []);
  projects.acquire("k", open).release();
  assert.equal(opened, 2, "a closed project is opened anew");
  await projects.closeAll();
});

test("the daemon is the default: --no-daemon and SCALPEL_DAEMON=0 keep the in-process mode; --daemon and SCALPEL_DAEMON=1 ask for it", async () => {
  const { daemonChoice } = await import("../../src/cli-options.js");
  const saved = process.env.SCALPEL_DAEMON;
  const none = { daemon: false, noDaemon: false };
  try {
    delete process.env.SCALPEL_DAEMON;
    assert.equal(daemonChoice(none), process.platform === "win32" ? "no" : "default");
    assert.equal(daemonChoice({ daemon: true, noDaemon: false }), "asked");
    assert.equal(daemonChoice({ daemon: false, noDaemon: true }), "no");
    process.env.SCALPEL_DAEMON = "1";
    assert.equal(daemonChoice(none), "asked");
    assert.equal(daemonChoice({ daemon: false, noDaemon: true }), "no", "the flag wins over the environment");
    process.env.SCALPEL_DAEMON = "0";
    assert.equal(daemonChoice(none), "no");
    assert.equal(daemonChoice({ daemon: true, noDaemon: false }), "asked");
    process.env.SCALPEL_DAEMON = "yes";
    assert.throws(() => daemonChoice(none), /SCALPEL_DAEMON is 1/);
    assert.throws(() => daemonChoice({ daemon: true, noDaemon: true }), /not both/);
  } finally {
    if (saved === undefined) delete process.env.SCALPEL_DAEMON;
    else process.env.SCALPEL_DAEMON = saved;
  }
});

test("an environment that changes what servers run has another daemon; one that does not shares it", () => {
  const base = { SCALPEL_HOME: home, PATH: "/usr/bin:/bin", TERM: "xterm" };
  const socket = (env: NodeJS.ProcessEnv) => daemonPaths(env).socket;
  const same = [
    { ...base, TERM: "dumb", PWD: "/elsewhere", SHLVL: "3" },
    { ...base, SCALPEL_HTTP_TOKEN: "a-token-of-the-client", SCALPEL_DAEMON: "1" },
  ];
  for (const env of same) assert.equal(socket(env), socket(base), JSON.stringify(env));
  const other = [
    { ...base, PATH: "/opt/go/bin:/usr/bin:/bin" },
    { ...base, SCALPEL_TOOL_TIMEOUT: "5" },
    { ...base, GOFLAGS: "-mod=vendor" },
    { ...base, VIRTUAL_ENV: "/home/u/venv" },
    { ...base, RUSTUP_TOOLCHAIN: "nightly" },
  ];
  for (const env of other) assert.notEqual(socket(env), socket(base), JSON.stringify(env));
});

test("every daemon of this build is listed, whatever its environment; another build's is not", async () => {
  const { daemonsOfThisBuild } = await import("../../src/daemon/paths.js");
  const env = { SCALPEL_HOME: join(home, "c"), PATH: "/usr/bin" };
  const mine = [daemonPaths(env), daemonPaths({ ...env, PATH: "/bin" })];
  const foreign = daemonPaths({ ...env, SCALPEL_DAEMON_BUILD_TAG: "other-build" });
  secureDaemonDir(mine[0]!);
  for (const p of [...mine, foreign]) writeFileSync(p.socket, "");
  assert.deepEqual(
    daemonsOfThisBuild(env)
      .map((p) => p.socket)
      .sort(),
    mine.map((p) => p.socket).sort(),
  );
});
