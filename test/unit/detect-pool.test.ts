// Several languages in one project: detection by extension counts, and routing paths to servers.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { adaptersFor } from "../../language-servers/index.js";
import { parseProjectConfig } from "../../src/config/project-config.js";
import { log } from "../../src/core/log.js";
import { detectLanguages } from "../../src/files/detect-languages.js";
import { IgnoreRules } from "../../src/files/ignore.js";
import { ServerPool } from "../../src/servers/server-pool.js";

test("detectLanguages counts files per language, most first, skipping ignored dirs", async () => {
  const root = await mkdtemp(join(tmpdir(), "scalpel-detect-"));
  try {
    for (const f of [
      "a.rs",
      "src/b.rs",
      "src/c.rs",
      "web/x.ts",
      "tool.py",
      "Cargo.toml", // makes target/ an output folder
      "target/debug/gen.rs",
      "lib/m.dart",
    ]) {
      await mkdir(join(root, f, ".."), { recursive: true });
      await writeFile(join(root, f), "");
    }
    const declared = parseProjectConfig(
      "language_servers:\n  python:\n    command: x\n    extensions: [.py]\n",
    ).language_servers;
    const found = await detectLanguages(
      root,
      new IgnoreRules(root, []),
      adaptersFor(declared, { trusted: true }),
    );
    assert.deepEqual(found, [
      { language: "rust", files: 3 },
      { language: "dart", files: 1 },
      { language: "python", files: 1 },
      { language: "typescript", files: 1 },
    ]);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test("detectLanguages names each language at its first file, while the walk goes on", async () => {
  const root = await mkdtemp(join(tmpdir(), "scalpel-detect-first-"));
  try {
    for (let i = 0; i < 30; i++) await writeFile(join(root, `f${String(i).padStart(2, "0")}.ts`), "");
    await mkdir(join(root, "z"));
    await writeFile(join(root, "z", "late.rs"), "");
    const heard: string[] = [];
    const found = await detectLanguages(
      root,
      new IgnoreRules(root, []),
      adaptersFor({}, { trusted: true }),
      undefined,
      (l) => heard.push(l),
    );
    assert.deepEqual(heard.sort(), ["rust", "typescript"], "each language once");
    assert.deepEqual(found, [
      { language: "typescript", files: 30 },
      { language: "rust", files: 1 },
    ]);
    // Stopped at its first TypeScript file (a server started then need not wait for the count):
    // the walk had not reached the Rust file yet.
    const stop = new AbortController();
    const early: string[] = [];
    await detectLanguages(
      root,
      new IgnoreRules(root, []),
      adaptersFor({}, { trusted: true }),
      stop.signal,
      (l) => {
        early.push(l);
        stop.abort();
      },
    ).catch(() => undefined);
    assert.deepEqual(early, ["typescript"]);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test("the pool routes each path to its language's adapter and reports missing servers", () => {
  const declared = parseProjectConfig(
    "language_servers:\n  python:\n    command: /nonexistent/ls\n    extensions: [.py]\n",
  ).language_servers;
  const pool = new ServerPool("/tmp", adaptersFor(declared, { trusted: true }), log);
  assert.equal(pool.adapterForPath("/tmp/src/a.ts")?.id, "typescript");
  assert.equal(pool.adapterForPath("/tmp/src/lib.RS")?.id, "rust");
  assert.equal(pool.adapterForPath("/tmp/x.dart")?.id, "dart");
  assert.equal(pool.adapterForPath("/tmp/app/m.py")?.id, "python");
  assert.equal(pool.adapterForPath("/tmp/README.md"), null);
  assert.throws(() => pool.sessionFor("/tmp/app/m.py"), /declared in \.scalpel\/project\.yml was not found/);
  const py = pool.states().find((s) => s.language === "python");
  assert.equal(py?.status, "missing");
});
