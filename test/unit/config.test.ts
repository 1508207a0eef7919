/** `.scalpel/project.yml`: defaults, every key, and errors that name the bad key. */
import * as assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { defaultConfig, loadProjectConfig, parseProjectConfig } from "../../src/config/project-config.js";
import { AppError } from "../../src/core/errors.js";
import { makeTempProject, type TempProject } from "../helpers/fixtures.js";

function invalid(text: string): string {
  try {
    parseProjectConfig(text);
  } catch (e) {
    assert.ok(e instanceof AppError && e.code === "invalid_config", String(e));
    return e.message;
  }
  assert.fail(`accepted: ${text}`);
}

let tmp: TempProject;
before(async () => {
  tmp = await makeTempProject("scalpel-config-");
});
after(() => tmp.cleanup());

test("no project.yml gives the defaults", async () => {
  assert.deepEqual(await loadProjectConfig(tmp.dir), defaultConfig);
  assert.equal(defaultConfig.memory_dir, ".scalpel/memories");
  assert.equal(defaultConfig.read_only, false);
});

test("every documented key is read", async () => {
  await mkdir(join(tmp.dir, ".scalpel"));
  await writeFile(
    join(tmp.dir, ".scalpel/project.yml"),
    [
      "name: shop",
      "languages: [typescript]",
      "ignored_paths: [generated/]",
      "read_only: true",
      "memory_dir: docs/memories",
      "secrets: ['*.secret', '!.env.example']",
      "initial_prompt: Run npm test after every change.",
      "language_servers:",
      "  python:",
      "    command: pyright-langserver",
      "    args: [--stdio]",
      "    extensions: [.py]",
    ].join("\n"),
  );
  const c = await loadProjectConfig(tmp.dir);
  assert.equal(c.name, "shop");
  assert.deepEqual(c.languages, ["typescript"]);
  assert.deepEqual(c.ignored_paths, ["generated/"]);
  assert.equal(c.read_only, true);
  assert.equal(c.memory_dir, "docs/memories");
  assert.deepEqual(c.secrets, ["*.secret", "!.env.example"]);
  assert.equal(c.initial_prompt, "Run npm test after every change.");
  assert.equal(c.language_servers.python?.command, "pyright-langserver");
});

test("an unknown key is refused by name, also a misspelt one", () => {
  assert.match(invalid("readonly: true\n"), /unknown key 'readonly'/);
  assert.match(
    invalid("language_servers:\n  py:\n    command: x\n    extensions: [.py]\n    colour: red\n"),
    /'colour' under language_servers\.py/,
  );
});

test("a value of the wrong type names its key", () => {
  assert.match(invalid("read_only: yes please\n"), /read_only:/);
  assert.match(invalid("memory_dir: 3\n"), /memory_dir:/);
});

test("memory_dir must stay inside the project", () => {
  for (const bad of ["../notes", "/abs/notes", "a/../../b"]) {
    assert.match(
      invalid(`memory_dir: ${JSON.stringify(bad)}\n`),
      /memory_dir: must be a path inside the project/,
    );
  }
  assert.equal(parseProjectConfig("memory_dir: memories\n").memory_dir, "memories");
});

test("memory_dir may not point into version control or scalpel's own folders", () => {
  for (const bad of [
    ".git/hooks",
    ".GIT",
    "docs/.git/x",
    ".hg",
    "a/.svn/b",
    ".jj",
    ".scalpel",
    ".scalpel/cache",
    ".Scalpel/Journal/x",
  ]) {
    assert.match(
      invalid(`memory_dir: ${JSON.stringify(bad)}\n`),
      /memory_dir: must not be inside a version-control folder/,
      bad,
    );
  }
  for (const good of [".scalpel/memories", "docs/memories", ".github/notes", "git/notes"]) {
    assert.equal(parseProjectConfig(`memory_dir: ${JSON.stringify(good)}\n`).memory_dir, good);
  }
});

test("YAML syntax errors give the line", () => {
  assert.match(invalid("name: [unclosed\n"), /not valid YAML at line \d+/);
});

test("a project.yml over the size limit is refused unread, quickly, by its size", async () => {
  const dir = join(tmp.dir, "huge");
  await mkdir(join(dir, ".scalpel"), { recursive: true });
  // 60 MB of YAML took 44 s and 2.5 GB to parse; the limit answers before reading it.
  await writeFile(join(dir, ".scalpel", "project.yml"), `ignored_paths:\n${"  - x\n".repeat(12_000_000)}`);
  const started = Date.now();
  await assert.rejects(loadProjectConfig(dir), (e: unknown) => {
    assert.ok(e instanceof AppError && e.code === "invalid_config", String(e));
    assert.match(e.message, /over the limit of 262144/);
    return true;
  });
  assert.ok(Date.now() - started < 2_000, `took ${Date.now() - started} ms`);
});
