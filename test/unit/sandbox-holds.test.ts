/**
 * What the sandbox holds beyond path spelling: folders the tools never write (`.scalpel/`, `.git/`
 * and other VCS internals), hard links and special files, a link swapped between the check and the
 * open (reader and writer ask the gate again about what they really opened), file modes, and the
 * bytes outside an edit.
 */
import * as assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmod, link, mkdir, readFile, rename, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { AppError } from "../../src/core/errors.js";
import { applyPlan } from "../../src/edits/apply.js";
import type { EditPlan } from "../../src/edits/plan.js";
import { Sandbox } from "../../src/security/sandbox.js";
import { readProjectText } from "../../src/text/read.js";
import { writeFileAtomic } from "../../src/text/write.js";
import { makeTempProject, type TempProject } from "../helpers/fixtures.js";

let tmp: TempProject;
let sandbox: Sandbox;
let root: string;

/** Asserts that `run` rejects with an AppError of `code`; returns its message. */
async function refused(code: string, run: () => unknown): Promise<string> {
  try {
    await run();
  } catch (e) {
    assert.ok(e instanceof AppError, `not an AppError: ${String(e)}`);
    assert.equal(e.code, code, e.message);
    assert.ok(!e.message.includes(tmp.base), `host path in: ${e.message}`);
    return e.message;
  }
  assert.fail(`expected ${code}, nothing was refused`);
}

/** Re-points the symlink `rel` atomically (as a swapping process would: new link, then rename). */
async function repoint(rel: string, target: string): Promise<void> {
  const tmpLink = join(root, `${rel}.swap`);
  await symlink(target, tmpLink);
  await rename(tmpLink, join(root, rel));
}

before(async () => {
  tmp = await makeTempProject("scalpel-holds-");
  root = tmp.dir;
  await mkdir(join(root, ".git", "hooks"), { recursive: true });
  await mkdir(join(root, ".scalpel"), { recursive: true });
  await mkdir(join(root, "vendor", "lib", ".git"), { recursive: true });
  await mkdir(join(root, "docs"), { recursive: true });
  await writeFile(join(root, ".git", "config"), "[core]\n");
  await writeFile(join(root, ".git", "HEAD"), "ref: refs/heads/main\n");
  await writeFile(join(root, ".scalpel", "project.yml"), "read_only: false\n");
  await writeFile(join(root, ".env"), "TOKEN=ENV_MARKER\n");
  await writeFile(join(root, ".env.local"), "TOKEN=ENV_LOCAL_MARKER\n");
  await writeFile(join(root, "inside.txt"), "inside\n");
  await writeFile(join(root, "movable.txt"), "movable\n");
  await writeFile(join(root, "plain.txt"), "plain\n");
  await writeFile(join(tmp.base, "outside.txt"), "OUTSIDE_MARKER\n");
  await symlink("../.env", join(root, "docs", "notes.txt"));
  await symlink(".git", join(root, "gitdir"));
  await link(join(root, ".env"), join(root, "docs", "hard.txt"));
  await link(join(root, "plain.txt"), join(root, "plain-twin.txt"));
  execFileSync("mkfifo", [join(root, "pipe")]);
  sandbox = new Sandbox(root);
});
after(() => tmp.cleanup());

describe("folders the tools never write", () => {
  test("scalpel's state and VCS internals are marked, as spelled, through a link, in any case", () => {
    const cases: Array<[string, string | undefined]> = [
      [".scalpel/project.yml", ".scalpel"],
      [".scalpel/journal/x.json", ".scalpel"],
      [".git/HEAD", ".git"],
      [".git/hooks/pre-commit", ".git"],
      [".GIT/hooks/post-checkout", ".GIT"],
      ["vendor/lib/.git/HEAD", ".git"],
      ["gitdir/hooks/pre-commit", ".git"], // the link is harmless by name; its target is not
      ["sub/.hg/hgrc", ".hg"],
      ["sub/.svn/entries", ".svn"],
      [".gitignore", undefined],
      [".github/workflows/ci.yml", undefined],
      ["src/git/config.ts", undefined],
    ];
    for (const [rel, dir] of cases) assert.equal(sandbox.resolve(rel).protectedBy, dir, rel);
  });

  test("an edit, a create, a delete and a rename into them are refused before anything is written, dry run too", async () => {
    const before = await readFile(join(root, ".scalpel", "project.yml"), "utf8");
    const plans: EditPlan[] = [
      [{ kind: "create", path: sandbox.resolve(".scalpel/project.yml"), content: "x: 1\n", overwrite: true }],
      [
        {
          kind: "create",
          path: sandbox.resolve(".git/hooks/pre-commit"),
          content: "#!/bin/sh\n",
          overwrite: false,
        },
      ],
      [
        {
          kind: "create",
          path: sandbox.resolve("gitdir/hooks/post-merge"),
          content: "#!/bin/sh\n",
          overwrite: false,
        },
      ],
      [{ kind: "edit", path: sandbox.resolve(".git/HEAD"), edits: [{ range: r(0, 0, 0, 3), newText: "x" }] }],
      [{ kind: "delete", path: sandbox.resolve(".git/HEAD") }],
      [
        {
          kind: "rename",
          from: sandbox.resolve("movable.txt"),
          to: sandbox.resolve(".git/hooks/pre-push"),
          overwrite: false,
        },
      ],
    ];
    for (const plan of plans) {
      for (const dryRun of [true, false]) {
        const msg = await refused("protected_path", () => applyPlan(plan, { dryRun }));
        assert.match(msg, /never writes through its tools/);
      }
    }
    assert.equal(await readFile(join(root, ".scalpel", "project.yml"), "utf8"), before);
    assert.equal(await readFile(join(root, ".git", "HEAD"), "utf8"), "ref: refs/heads/main\n");
    await assert.rejects(stat(join(root, ".git", "hooks", "pre-commit")));
    await assert.rejects(stat(join(root, ".git", "hooks", "post-merge")));
    assert.equal(await readFile(join(root, "movable.txt"), "utf8"), "movable\n");
  });

  test("reading scalpel's own config stays possible; .git/config is secret", async () => {
    const yml = sandbox.resolve(".scalpel/project.yml");
    assert.equal((await readProjectText(yml.abs, yml.rel)).text, "read_only: false\n");
    await refused("secret_file", () => sandbox.resolve(".git/config"));
    await refused("secret_file", () => sandbox.resolve("gitdir/config"));
  });
});

describe("hard links and special files", () => {
  test("a hard link (to a secret or not) and a FIFO get no checked path; listing may name them", async () => {
    const msg = await refused("unsupported_file", () => sandbox.resolve("docs/hard.txt"));
    assert.match(msg, /hard link/);
    await refused("unsupported_file", () => sandbox.resolve("plain.txt")); // it has a twin now
    await refused("unsupported_file", () => sandbox.resolve("pipe"));
    assert.equal(sandbox.resolveName("docs/hard.txt").rel, "docs/hard.txt");
    assert.equal(sandbox.resolveName("pipe").rel, "pipe");
  });

  test("a walk skips them by construction", () => {
    const mint = sandbox.walker(sandbox.resolve("."));
    for (const rel of ["docs/hard.txt", "plain.txt", "plain-twin.txt", "pipe", "docs/notes.txt", ".env"]) {
      assert.equal(mint(rel), null, rel);
    }
    assert.equal(mint("inside.txt")?.rel, "inside.txt");
  });

  test("the reader refuses them even when handed the path directly, and a FIFO does not block it", async () => {
    await refused("unsupported_file", () => readProjectText(join(root, "docs", "hard.txt"), "docs/hard.txt"));
    const started = Date.now();
    await refused("unsupported_file", () => readProjectText(join(root, "pipe"), "pipe"));
    assert.ok(Date.now() - started < 2000, "opening the FIFO blocked");
  });

  test("the writer refuses to replace a hard-linked file", async () => {
    await refused("unsupported_file", () => writeFileAtomic(join(root, "plain-twin.txt"), Buffer.from("x")));
    assert.equal(await readFile(join(root, "plain.txt"), "utf8"), "plain\n");
  });
});

describe("a link swapped after the check", () => {
  test("reads: the gate judges the file actually opened (outside → refused, secret → refused)", async () => {
    await repoint("swap.txt", "inside.txt");
    const checked = sandbox.resolve("swap.txt", { mustExist: true });
    assert.equal((await readProjectText(checked.abs, checked.rel)).text, "inside\n");
    await repoint("swap.txt", join(tmp.base, "outside.txt"));
    await refused("path_outside_project", () => readProjectText(checked.abs, checked.rel));
    await repoint("swap.txt", ".env.local");
    await refused("secret_file", () => readProjectText(checked.abs, checked.rel));
  });

  test("writes: outside, secret and protected targets are refused; nothing lands there", async () => {
    await repoint("swapw.txt", "inside.txt");
    const checked = sandbox.resolve("swapw.txt", { mustExist: true });
    await repoint("swapw.txt", join(tmp.base, "outside.txt"));
    await refused("path_outside_project", () => writeFileAtomic(checked.abs, Buffer.from("pwned\n")));
    await repoint("swapw.txt", ".env.local");
    await refused("secret_file", () => writeFileAtomic(checked.abs, Buffer.from("pwned\n")));
    await repoint("swapw.txt", ".scalpel/project.yml");
    await refused("protected_path", () => writeFileAtomic(checked.abs, Buffer.from("pwned\n")));
    assert.equal(await readFile(join(tmp.base, "outside.txt"), "utf8"), "OUTSIDE_MARKER\n");
    assert.equal(await readFile(join(root, ".env.local"), "utf8"), "TOKEN=ENV_LOCAL_MARKER\n");
    assert.equal(await readFile(join(root, ".scalpel", "project.yml"), "utf8"), "read_only: false\n");
    // Pointing inside again, the write goes through the link to its target (the link stays a link).
    await repoint("swapw.txt", "inside.txt");
    await writeFileAtomic(checked.abs, Buffer.from("inside 2\n"));
    assert.equal(await readFile(join(root, "inside.txt"), "utf8"), "inside 2\n");
  });

  test("a directory on the way swapped outside: the write is refused", async () => {
    await mkdir(join(root, "realdir"));
    await mkdir(join(tmp.base, "outdir"));
    await symlink("realdir", join(root, "dirlink"));
    const checked = sandbox.resolve("dirlink/new.txt");
    await rename(join(root, "dirlink"), join(root, "dirlink.old"));
    await symlink(join(tmp.base, "outdir"), join(root, "dirlink"));
    await refused("path_outside_project", () => writeFileAtomic(checked.abs, Buffer.from("pwned\n")));
    await assert.rejects(stat(join(tmp.base, "outdir", "new.txt")));
  });

  test("new folders for a new file are not made through a link swapped outside (mkdir -p would follow it)", async () => {
    await mkdir(join(root, "realdir2"));
    await mkdir(join(tmp.base, "outdir2"));
    await symlink("realdir2", join(root, "dirlink2"));
    const deep = sandbox.resolve("dirlink2/a/b/new.txt");
    const plan: EditPlan = [{ kind: "create", path: deep, content: "new\n", overwrite: false }];
    await rename(join(root, "dirlink2"), join(root, "dirlink2.old"));
    await symlink(join(tmp.base, "outdir2"), join(root, "dirlink2"));
    await refused("path_outside_project", () => applyPlan(plan, { dryRun: false }));
    await assert.rejects(stat(join(tmp.base, "outdir2", "a")), "a folder was made outside");
    // Back inside, the same plan makes the folders and the file.
    await rename(join(root, "dirlink2.old"), join(root, "dirlink2"));
    await applyPlan(plan, { dryRun: false });
    assert.equal(await readFile(join(root, "realdir2", "a", "b", "new.txt"), "utf8"), "new\n");
  });
});

describe("modes and bytes", () => {
  test("a chmod 444 file is not overwritten (edit, create over it, delete), dry run included", async () => {
    await writeFile(join(root, "locked.txt"), "locked\n");
    await chmod(join(root, "locked.txt"), 0o444);
    const path = sandbox.resolve("locked.txt");
    const plans: EditPlan[] = [
      [{ kind: "edit", path, edits: [{ range: r(0, 0, 0, 6), newText: "open" }] }],
      [{ kind: "create", path, content: "new\n", overwrite: true }],
      [{ kind: "delete", path }],
    ];
    for (const plan of plans) {
      for (const dryRun of [true, false]) {
        const msg = await refused("file_read_only", () => applyPlan(plan, { dryRun }));
        assert.match(msg, /chmod u\+w/);
      }
    }
    await refused("file_read_only", () => writeFileAtomic(path.abs, Buffer.from("x")));
    assert.equal(await readFile(join(root, "locked.txt"), "utf8"), "locked\n");
    assert.equal((await stat(join(root, "locked.txt"))).mode & 0o777, 0o444);
  });

  test("a write keeps the file's mode (0640, 0755)", async () => {
    for (const mode of [0o640, 0o755]) {
      await writeFile(join(root, "moded.sh"), "echo 1\n");
      await chmod(join(root, "moded.sh"), mode);
      const path = sandbox.resolve("moded.sh");
      await applyPlan([{ kind: "edit", path, edits: [{ range: r(0, 5, 0, 6), newText: "2" }] }], {
        dryRun: false,
      });
      assert.equal(await readFile(join(root, "moded.sh"), "utf8"), "echo 2\n");
      assert.equal((await stat(join(root, "moded.sh"))).mode & 0o777, mode);
    }
  });

  test("bytes outside the edited range never change (BOM, mixed line endings, astral characters)", async () => {
    const head = Buffer.from("\uFEFFfirst line \u{1F600}\r\nsecond\nthird\rfourth\r\n", "utf8");
    const tail = Buffer.from("\r\nsixth \u00e9\nlast without newline", "utf8");
    await writeFile(join(root, "mixed.txt"), Buffer.concat([head, Buffer.from("fifth"), tail]));
    const path = sandbox.resolve("mixed.txt");
    // Line 5 (0-based 4), "fifth" → "FIFTH\nand more" (a new line break gets the file's first style).
    await applyPlan([{ kind: "edit", path, edits: [{ range: r(4, 0, 4, 5), newText: "FIFTH\nand more" }] }], {
      dryRun: false,
    });
    const after = await readFile(join(root, "mixed.txt"));
    assert.deepEqual(after.subarray(0, head.length), head);
    assert.deepEqual(after.subarray(after.length - tail.length), tail);
    assert.equal(
      after.subarray(head.length, after.length - tail.length).toString("utf8"),
      "FIFTH\r\nand more",
    );
  });

  test("a file with bytes that are not UTF-8 is refused for edits and left byte for byte", async () => {
    const bytes = Buffer.concat([Buffer.from("caf"), Buffer.from([0xe9]), Buffer.from(" = 1;\nnext\n")]);
    await writeFile(join(root, "latin1.txt"), bytes);
    const path = sandbox.resolve("latin1.txt");
    await refused("unsupported_encoding", () =>
      applyPlan([{ kind: "edit", path, edits: [{ range: r(1, 0, 1, 4), newText: "NEXT" }] }], {
        dryRun: false,
      }),
    );
    assert.deepEqual(await readFile(join(root, "latin1.txt")), bytes);
  });
});

function r(l1: number, c1: number, l2: number, c2: number) {
  return { start: { line: l1, character: c1 }, end: { line: l2, character: c2 } };
}
