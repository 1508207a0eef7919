/**
 * firstRunning (src/process/probe.ts), the one search for a working server binary that the adapters
 * share: real executables in a temp dir (one that answers, one that fails like the rustup proxy
 * does, one that is absent), and a bare name looked up on PATH.
 */
import { strict as assert } from "node:assert";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { firstRunning } from "../../src/process/probe.js";

let dir: string;
const script = async (name: string, body: string) => {
  const path = join(dir, name);
  await writeFile(path, `#!/bin/sh\n${body}\n`);
  await chmod(path, 0o755);
  return path;
};

before(async () => {
  dir = await mkdtemp(join(tmpdir(), "scalpel-probe-"));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test("the first candidate that answers wins; each one tried before it says why it did not", async () => {
  const proxy = await script(
    "proxy",
    "echo \"error: Unknown binary 'srv' in official toolchain\" >&2; exit 1",
  );
  const good = await script("good", 'echo "srv 1.2.3 ($1 $PROBE_MARK)"');
  const later = await script("later", 'echo "later 9"');
  const found = firstRunning(
    [
      { command: join(dir, "absent"), from: "ENV_DIR" },
      { command: "scalpel-no-such-binary-anywhere", from: "PATH" },
      { command: proxy, from: "~/.proxy" },
      { command: good, from: "~/good" },
      { command: later, from: "~/later" },
    ],
    ["version"],
    { PROBE_MARK: "quiet" },
  );
  // The version arguments and the adapter's env reach the run.
  assert.deepEqual(found, { command: good, from: "~/good", version: "srv 1.2.3 (version quiet)" });
});

test("none answers: every failure, in order, for the caller's message", async () => {
  const proxy = await script("proxy2", 'echo "no such component" >&2; exit 3');
  const found = firstRunning([
    { command: join(dir, "absent"), from: "SCALPEL_X" },
    { command: "scalpel-no-such-binary-anywhere", from: "PATH" },
    { command: proxy, from: "~/.cargo/bin" },
  ]);
  assert.deepEqual(found, {
    tried: ["SCALPEL_X: not found", "PATH: not found", "~/.cargo/bin: exit code 3"],
  });
});

test("the answer is kept per candidate list and arguments: a changed list asks again", async () => {
  const once = await script("once", 'echo "once 1"');
  const list = [{ command: once, from: "X" }];
  assert.equal((firstRunning(list) as { version: string }).version, "once 1");
  await rm(once);
  // Same list: not run again (a launch spec built per session costs no spawn).
  assert.equal((firstRunning(list) as { version: string }).version, "once 1");
  // Another list (an env variable changed the candidates): asked again, and the file is gone.
  assert.deepEqual(firstRunning([{ command: once, from: "Y" }]), { tried: ["Y: not found"] });
});
