/** `scalpel doctor [--project]` over the built CLI: every server with a version or an install hint. */
import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { makeTempProject } from "../helpers/fixtures.js";
import { assertCliBuilt, cliPath } from "../helpers/mcp.js";

function doctor(args: string[], env: Record<string, string> = {}) {
  assertCliBuilt();
  const r = spawnSync(process.execPath, [cliPath, "doctor", ...args], {
    encoding: "utf8",
    env: { ...process.env, ...env },
    timeout: 60_000,
  });
  return { status: r.status, out: r.stdout };
}

test("doctor lists each built-in server with a version or an install hint", () => {
  const { status, out } = doctor([]);
  assert.equal(status, 0);
  // The build's V8 code cache (scripts/bundle.mjs) is the one this bundle and this Node accept.
  assert.match(out, /^scalpel \S+ on Node v[\d.]+ \(start-up code cache: used\)$/m);
  assert.match(out, /^✔ TypeScript \/ JavaScript: typescript-language-server 5\.3\.0/m);
  assert.match(
    out,
    /^(✔ Rust \(rust-analyzer\): rust-analyzer |✘ Rust \(rust-analyzer\): not found — .*install-rust-analyzer\.sh)/m,
  );
  assert.match(
    out,
    /^(✔ Dart \(analysis server\): Dart SDK version|✘ Dart \(analysis server\): not found — Install the Dart SDK)/m,
  );
  assert.match(
    out,
    /^(✔ Go \(gopls\): golang\.org\/x\/tools\/gopls v|✘ Go \(gopls\): not found — gopls is not)/m,
  );
});

test("a broken SCALPEL_GOPLS is reported with the install hint", () => {
  const { out } = doctor([], { SCALPEL_GOPLS: "/nonexistent/gopls" });
  assert.match(
    out,
    /^✘ Go \(gopls\): not found — gopls is not installed or does not run \(SCALPEL_GOPLS: not found\)\. Install gopls: `go install golang\.org\/x\/tools\/gopls@v0\.23\.0`/m,
  );
});

test("a broken SCALPEL_RUST_ANALYZER is reported with the install hint", () => {
  const { out } = doctor([], { SCALPEL_RUST_ANALYZER: "/nonexistent/rust-analyzer" });
  assert.match(
    out,
    /^✘ Rust \(rust-analyzer\): not found — rust-analyzer is not installed or does not run \(SCALPEL_RUST_ANALYZER: not found\)/m,
  );
});

test("with --project, the project's declared servers are listed too", async () => {
  const fx = await makeTempProject("scalpel-doctor-");
  try {
    await mkdir(join(fx.dir, ".scalpel"));
    await writeFile(
      join(fx.dir, ".scalpel", "project.yml"),
      "language_servers:\n  python:\n    command: no-such-pyls\n    extensions: [.py]\n  lua:\n    command: /bin/sh\n    extensions: [.lua]\n",
    );
    const { status, out } = doctor(["--project", fx.dir]);
    assert.equal(status, 0);
    assert.match(out, /2 language servers declared in \.scalpel\/project\.yml/);
    assert.match(out, /^ {2}✘ python \(no-such-pyls, from project\.yml\): not found — .*no-such-pyls/m);
    assert.match(
      out,
      /^ {2}✔ lua \(\/bin\/sh, from project\.yml\): declared in \.scalpel\/project\.yml \(\/bin\/sh\)/m,
    );
  } finally {
    await fx.cleanup();
  }
});
