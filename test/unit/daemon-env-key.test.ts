// Which environments share a daemon (src/daemon/env-key.ts): what changes the servers' answers
// separates daemons, a terminal's or host's own variables do not.
import assert from "node:assert/strict";
import { test } from "node:test";
import { environmentKey, mattersToDaemon } from "../../src/daemon/env-key.js";

const base = { PATH: "/usr/bin", HOME: "/home/u", TERM: "xterm", SCALPEL_TOOL_TIMEOUT: "60" };

test("a toolchain's variables and scalpel's daemon-side settings separate daemons", () => {
  const key = environmentKey(base);
  for (const [name, value] of [
    ["PATH", "/opt/bin:/usr/bin"],
    ["GOFLAGS", "-mod=vendor"],
    ["VIRTUAL_ENV", "/p/.venv"],
    ["SCALPEL_TOOL_TIMEOUT", "5"],
    // No toolchain shape: named by the adapters' side (language-servers/environment.ts).
    ["GOOS", "windows"],
    ["GOWORK", "off"],
    ["GO111MODULE", "off"],
    ["CARGO_BUILD_TARGET", "wasm32-unknown-unknown"],
  ] as const) {
    assert.notEqual(environmentKey({ ...base, [name]: value }), key, `${name} must separate daemons`);
  }
});

test("a terminal's and a host's own variables, and client-only settings, do not", () => {
  const key = environmentKey(base);
  for (const [name, value] of [
    ["TERM", "dumb"],
    ["PWD", "/elsewhere"],
    ["CLAUDECODE", "1"],
    ["SCALPEL_HTTP_TOKEN", "x".repeat(20)],
  ] as const) {
    assert.equal(environmentKey({ ...base, [name]: value }), key, `${name} must not separate daemons`);
  }
  assert.deepEqual(
    mattersToDaemon({ ...base, GOOS: "linux" }).map(([k]) => k),
    ["GOOS", "HOME", "PATH", "SCALPEL_TOOL_TIMEOUT"],
  );
});
