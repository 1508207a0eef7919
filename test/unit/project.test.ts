import assert from "node:assert/strict";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { parseProjectConfig } from "../../src/config/project-config.js";
import { log } from "../../src/core/log.js";
import { openProject } from "../../src/project/open-project.js";

test("a declared server's ignored_dirs and ignored_paths are ignored; read_only and secrets apply", async () => {
  const root = await realpath(await mkdtemp(join(tmpdir(), "scalpel-project-")));
  try {
    const config = parseProjectConfig(
      [
        "read_only: true",
        "ignored_paths: [generated/]",
        "secrets: ['*.secret']",
        "language_servers:",
        "  python:",
        "    command: pyright-langserver",
        "    extensions: [.py]",
        "    ignored_dirs: [.venv]",
      ].join("\n"),
    );
    const p = openProject({ root, readOnly: false, config }, log);
    assert.equal(p.readOnly, true);
    assert.ok(p.ignore.isIgnored(".venv", true));
    assert.ok(p.ignore.isIgnored("generated", true));
    assert.ok(!p.ignore.isIgnored("app", true));
    assert.ok(p.secrets.isSecret("keys/prod.secret"));
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
