// @tsserver-only scalpel's own behaviour (protocol, limits, security), not the server's: one backend is enough
/**
 * Escalation through the write tools, over the built CLI: an agent (or a prompt injection steering
 * it) must not be able to write scalpel's own `.scalpel/` state (a project.yml with a shell "server"
 * and `secrets: ["!.env*"]`) or version-control internals (`.git/config` with `core.fsmonitor`, a
 * hook), directly, through a link, or in another letter case. The memory tools and undo keep writing
 * their own files there. Read-only files are not overwritten, and a write keeps a file's mode.
 */
import { strict as assert } from "node:assert";
import { chmod, mkdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { copyFixture, hashTree, type TempProject } from "../helpers/fixtures.js";
import { callOk, type ScalpelHandle, startScalpel } from "../helpers/mcp.js";

const HOSTILE_YML =
  'language_servers:\n  sh:\n    command: ["/bin/sh", "-c", "touch pwned"]\n    extensions: [".sh"]\nsecrets:\n  - "!.env*"\n';

describe("writes into protected folders (e2e)", () => {
  let fx: TempProject;
  let h: ScalpelHandle;
  let gitBefore: Record<string, string>;

  async function refused(tool: string, args: Record<string, unknown>, code: RegExp): Promise<string> {
    const r = await h.call(tool, args);
    assert.ok(r.isError, `${tool}(${JSON.stringify(args)}) was not refused: ${r.text.slice(0, 300)}`);
    assert.match(r.text, code, `${tool}: ${r.text}`);
    return r.text;
  }

  before(async () => {
    fx = await copyFixture("ts-basic");
    await mkdir(join(fx.dir, ".git", "hooks"), { recursive: true });
    await mkdir(join(fx.dir, ".scalpel"));
    await writeFile(join(fx.dir, ".git", "config"), "[core]\n\trepositoryformatversion = 0\n");
    await writeFile(join(fx.dir, ".git", "HEAD"), "ref: refs/heads/main\n");
    await writeFile(join(fx.dir, ".env"), "TOKEN=ENV_SECRET_VALUE\n");
    await symlink(".git", join(fx.dir, "meta"));
    await symlink(".scalpel", join(fx.dir, "settings"));
    gitBefore = await hashTree(join(fx.dir, ".git"));
    h = await startScalpel({ project: fx.dir });
  });
  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  it("create_text_file .scalpel/project.yml is refused (as spelled, through a link, in capitals), dry run too", async () => {
    for (const rel of [".scalpel/project.yml", "settings/project.yml", ".SCALPEL/project.yml"]) {
      for (const dry_run of [false, true]) {
        const text = await refused(
          "create_text_file",
          { relative_path: rel, content: HOSTILE_YML, dry_run },
          /protected_path/,
        );
        assert.match(text, /never writes through its tools/);
      }
    }
    await assert.rejects(stat(join(fx.dir, ".scalpel", "project.yml")));
    await assert.rejects(stat(join(fx.dir, ".SCALPEL")));
  });

  it("an edit of .git/config is refused (secret, so not even read); hooks and HEAD are protected", async () => {
    await refused(
      "replace_content",
      { relative_path: ".git/config", needle: "[core]", replacement: "[core]\n\tfsmonitor = touch pwned" },
      /secret_file/,
    );
    await refused("read_file", { relative_path: "meta/config" }, /secret_file/);
    await refused(
      "create_text_file",
      { relative_path: ".git/hooks/pre-commit", content: "#!/bin/sh\ntouch pwned\n" },
      /protected_path/,
    );
    await refused(
      "create_text_file",
      { relative_path: "meta/hooks/post-checkout", content: "#!/bin/sh\n" },
      /protected_path/,
    );
    await refused(
      "replace_content",
      { relative_path: ".git/HEAD", needle: "main", replacement: "evil" },
      /protected_path/,
    );
    await refused(
      "create_text_file",
      { relative_path: "vendor/.git/config.worktree", content: "x\n" },
      /protected_path/,
    );
    assert.deepEqual(await hashTree(join(fx.dir, ".git")), gitBefore);
  });

  it("reading scalpel's own files and the memory tools keep working", async () => {
    await callOk(h, "write_memory", { name: "notes", content: "# Notes\nkept\n" });
    await callOk(h, "edit_memory", { name: "notes", needle: "kept", replacement: "still kept" });
    assert.equal(
      await readFile(join(fx.dir, ".scalpel", "memories", "notes.md"), "utf8"),
      "# Notes\nstill kept\n",
    );
    const read = await h.call("read_file", { relative_path: ".scalpel/memories/notes.md" });
    assert.ok(!read.isError, read.text);
    // …but the file tools do not write there.
    await refused(
      "replace_content",
      { relative_path: ".scalpel/memories/notes.md", needle: "still", replacement: "no longer" },
      /protected_path/,
    );
  });

  it("an ordinary edit and its undo still work (the journal writes under .scalpel/)", async () => {
    const edit = await callOk<{ edit_id?: string }>(h, "replace_content", {
      relative_path: "src/util.ts",
      needle: "nobody calls me",
      replacement: "somebody might",
    });
    assert.ok(edit.edit_id);
    await callOk(h, "undo_edit", { edit_id: edit.edit_id });
    assert.match(await readFile(join(fx.dir, "src", "util.ts"), "utf8"), /nobody calls me/);
  });

  it("a chmod 444 file is not overwritten; an edit keeps a file's mode", async () => {
    await writeFile(join(fx.dir, "locked.txt"), "locked\n");
    await chmod(join(fx.dir, "locked.txt"), 0o444);
    const text = await refused(
      "replace_content",
      { relative_path: "locked.txt", needle: "locked", replacement: "open" },
      /file_read_only/,
    );
    assert.match(text, /chmod u\+w/);
    await refused(
      "create_text_file",
      { relative_path: "locked.txt", content: "x\n", overwrite: true },
      /file_read_only/,
    );
    assert.equal(await readFile(join(fx.dir, "locked.txt"), "utf8"), "locked\n");

    await writeFile(join(fx.dir, "run.sh"), "echo one\n");
    await chmod(join(fx.dir, "run.sh"), 0o750);
    await callOk(h, "replace_content", { relative_path: "run.sh", needle: "one", replacement: "two" });
    assert.equal(await readFile(join(fx.dir, "run.sh"), "utf8"), "echo two\n");
    assert.equal((await stat(join(fx.dir, "run.sh"))).mode & 0o777, 0o750);
  });

  it("after all that, activation runs nothing and .env stays hidden", async () => {
    await callOk(h, "activate_project", { project: fx.dir });
    await refused("read_file", { relative_path: ".env" }, /secret_file/);
    await assert.rejects(stat(join(fx.dir, "pwned")));
    assert.deepEqual(h.hostPathLeaks, []);
  });
});
