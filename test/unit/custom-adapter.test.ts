// Servers declared in project.yml become adapters; a declared built-in id replaces the built-in.
import assert from "node:assert/strict";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { customAdapter, settingsSection } from "../../language-servers/custom.js";
import { adaptersFor } from "../../language-servers/index.js";
import { parseProjectConfig } from "../../src/config/project-config.js";

const yml = (body: string) => parseProjectConfig(body).language_servers;

test("adaptersFor adds declared servers and lets them replace built-ins by id", () => {
  const declared = yml(
    "language_servers:\n  python:\n    command: pyright-langserver\n    args: [--stdio]\n    extensions: [.py, .PYI]\n  rust:\n    command: my-ra\n    extensions: [.rs]\n",
  );
  const list = adaptersFor(declared, { trusted: true });
  assert.deepEqual(
    list.map((a) => a.id),
    ["typescript", "dart", "go", "python", "rust"],
  );
  assert.deepEqual(list.find((a) => a.id === "python")?.extensions, [".py", ".pyi"]);
  assert.match(list.find((a) => a.id === "rust")?.displayName ?? "", /from project\.yml/);
});

test("untrusted: declared servers never start and replace no built-in server", () => {
  const declared = yml(
    "language_servers:\n  lua:\n    command: /bin/sh\n    args: [-c, 'touch marker']\n    extensions: [.lua]\n  rust:\n    command: my-ra\n    extensions: [.rs]\n  python:\n    command: my-pyright\n    extensions: [.py]\n",
  );
  const list = adaptersFor(declared, { trusted: false });
  assert.deepEqual(
    list.map((a) => a.id),
    ["typescript", "rust", "dart", "go", "python", "lua"],
  );
  assert.doesNotMatch(list.find((a) => a.id === "rust")?.displayName ?? "", /from project\.yml/);
  assert.doesNotMatch(list.find((a) => a.id === "python")?.displayName ?? "", /from project\.yml/);
  const lua = list.find((a) => a.id === "lua")!.spec("/tmp");
  assert.ok("missing" in lua && /not trusted/.test(lua.missing) && /scalpel trust/.test(lua.missing));
});

test("the launch spec resolves the command from node_modules/.bin, maps options and settings", async () => {
  const root = await mkdtemp(join(tmpdir(), "scalpel-custom-"));
  try {
    const cfg = yml(
      "language_servers:\n  python:\n    command: fake-ls\n    args: [--stdio]\n    extensions: [.py]\n    language_id: py\n    initialization_options: {a: 1}\n    settings: {python: {analysis: {mode: strict}}, 'x.y': 2}\n    request_timeout_s: 5\n    diagnostics: pull\n",
    ).python!;
    const adapter = customAdapter("python", cfg);
    const missing = adapter.spec(root);
    assert.ok("missing" in missing && /fake-ls/.test(missing.missing));
    assert.equal((await adapter.probe(root)).found, false);
    await mkdir(join(root, "node_modules", ".bin"), { recursive: true });
    await writeFile(join(root, "node_modules", ".bin", "fake-ls"), "#!/bin/sh\n");
    await chmod(join(root, "node_modules", ".bin", "fake-ls"), 0o755);
    const spec = adapter.spec(root);
    assert.ok(!("missing" in spec));
    assert.deepEqual(spec.launch, {
      command: join(root, "node_modules", ".bin", "fake-ls"),
      args: ["--stdio"],
    });
    assert.equal(spec.languageIdFor(".py"), "py");
    assert.deepEqual(spec.initializationOptions, { a: 1 });
    assert.equal(spec.requestTimeoutMs, 5000);
    assert.equal(spec.diagnostics, "pull");
    assert.deepEqual(spec.configuration?.("python.analysis", undefined), { mode: "strict" });
    assert.equal(spec.configuration?.("x.y", undefined), 2);
    assert.equal(spec.configuration?.("nope", undefined), null);
    assert.equal((await adapter.probe(root)).found, true);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test("settingsSection walks dotted sections", () => {
  assert.equal(settingsSection(undefined, "a"), null);
  assert.deepEqual(settingsSection({ a: { b: 1 } }, undefined), { a: { b: 1 } });
  assert.equal(settingsSection({ a: { b: 1 } }, "a.b"), 1);
});
