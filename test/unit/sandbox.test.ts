import * as assert from "node:assert/strict";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { AppError } from "../../src/errors.js";
import { Sandbox } from "../../src/security/sandbox.js";
import { makeTempProject, type TempProject } from "../helpers/fixtures.js";

let tmp: TempProject;
let sandbox: Sandbox;

before(async () => {
  tmp = await makeTempProject("scalpel-sandbox-");
  const root = tmp.dir;
  await mkdir(join(root, "src", "deep"), { recursive: true });
  await writeFile(join(root, "src", "a.ts"), "export const a = 1;\n");
  await writeFile(join(tmp.base, "secret.txt"), "outside\n");
  await mkdir(join(tmp.base, "outdir"));
  await writeFile(join(tmp.base, "outdir", "x.txt"), "outside\n");
  await symlink(join(tmp.base, "secret.txt"), join(root, "link-out.txt"));
  await symlink(join(tmp.base, "outdir"), join(root, "linkdir-out"));
  await symlink(join(root, "src", "a.ts"), join(root, "link-in.ts"));
  await symlink("src", join(root, "linkdir-in"));
  await symlink(join(tmp.base, "does-not-exist.txt"), join(root, "dangling-out.txt"));
  sandbox = new Sandbox(root);
});
after(() => tmp.cleanup());

function refused(fn: () => unknown, code = "path_outside_project"): AppError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof AppError, `expected AppError, got ${String(e)}`);
    assert.equal(e.code, code);
    assert.ok(!e.message.includes(tmp.base), `message leaks a host path: ${e.message}`);
    return e;
  }
  assert.fail("expected the path to be refused");
}

describe("Sandbox.resolve refuses hostile paths", () => {
  const hostile: Array<[string, string]> = [
    ["absolute outside", "/etc/passwd"],
    ["parent", "../x"],
    ["parent of parent", "../../etc/passwd"],
    ["dot-dot in the middle", "a/../../b"],
    ["dot-dot after a real dir", "src/../../secret.txt"],
    ["NUL byte", "src/a.ts\0.png"],
    ["backslash traversal", "..\\..\\secret.txt"],
    ["backslash separator", "src\\a.ts"],
    ["windows drive", "C:/Windows/win.ini"],
    ["home", "~/x"],
    ["symlinked file pointing outside", "link-out.txt"],
    ["symlinked dir pointing outside", "linkdir-out"],
    ["file under a symlinked dir pointing outside", "linkdir-out/x.txt"],
    ["new file under a symlinked dir pointing outside", "linkdir-out/new.txt"],
    ["new dir and file under a symlinked dir pointing outside", "linkdir-out/n/e/w.txt"],
    ["dangling symlink", "dangling-out.txt"],
  ];
  for (const [name, path] of hostile) {
    test(name, () => {
      refused(() => sandbox.resolve(path));
    });
  }

  test("an absolute path inside the root is refused with the relative spelling suggested", () => {
    const e = refused(() => sandbox.resolve(join(tmp.dir, "src", "a.ts")));
    assert.match(e.message, /'src\/a\.ts'/);
  });
});

describe("Sandbox.resolve accepts paths inside the root", () => {
  test("plain, dotted and trailing-slash spellings normalise", () => {
    assert.equal(sandbox.resolve("src/a.ts").rel, "src/a.ts");
    assert.equal(sandbox.resolve("./src//a.ts").rel, "src/a.ts");
    assert.equal(sandbox.resolve("src/deep/../a.ts").rel, "src/a.ts");
    assert.equal(sandbox.resolve("src/").rel, "src");
    const root = sandbox.resolve(".");
    assert.equal(root.rel, ".");
    assert.equal(root.abs, tmp.dir);
    assert.equal(sandbox.resolve("").rel, ".");
  });

  test("abs is under the root", () => {
    assert.equal(sandbox.resolve("src/a.ts").abs, join(tmp.dir, "src", "a.ts"));
  });

  test("symlinks that stay inside the root are allowed", () => {
    assert.equal(sandbox.resolve("link-in.ts", { mustExist: true, kind: "file" }).rel, "link-in.ts");
    assert.equal(sandbox.resolve("linkdir-in/a.ts", { mustExist: true }).rel, "linkdir-in/a.ts");
  });

  test("new files in new directories are allowed", () => {
    assert.equal(sandbox.resolve("new/dir/file.ts").rel, "new/dir/file.ts");
  });

  test("mustExist and kind", () => {
    refused(() => sandbox.resolve("nope.ts", { mustExist: true }), "file_not_found");
    refused(() => sandbox.resolve("src", { kind: "file" }), "invalid_argument");
    refused(() => sandbox.resolve("src/a.ts", { kind: "dir" }), "invalid_argument");
    assert.equal(sandbox.resolve("src", { kind: "dir", mustExist: true }).rel, "src");
  });
});

describe("Sandbox.fromAbsolute / fromUri", () => {
  test("inside → checked path", () => {
    assert.equal(sandbox.fromAbsolute(join(tmp.dir, "src", "a.ts"))?.rel, "src/a.ts");
    assert.equal(sandbox.fromUri(pathToFileURL(join(tmp.dir, "src", "a.ts")).href)?.rel, "src/a.ts");
    assert.equal(sandbox.fromUri(pathToFileURL(join(tmp.dir, "src", "new.ts")).href)?.rel, "src/new.ts");
    assert.equal(sandbox.fromAbsolute(tmp.dir)?.rel, ".");
  });

  test("outside, through a symlink, or not a file URI → null", () => {
    assert.equal(sandbox.fromAbsolute(join(tmp.base, "secret.txt")), null);
    assert.equal(sandbox.fromAbsolute(join(tmp.dir, "link-out.txt")), null);
    assert.equal(sandbox.fromAbsolute(join(tmp.dir, "linkdir-out", "new.txt")), null);
    assert.equal(sandbox.fromAbsolute("relative/path.ts"), null);
    assert.equal(sandbox.fromUri(pathToFileURL(join(tmp.base, "secret.txt")).href), null);
    assert.equal(sandbox.fromUri(pathToFileURL(join(tmp.dir, "..", "secret.txt")).href), null);
    assert.equal(sandbox.fromUri("untitled:Untitled-1"), null);
    assert.equal(sandbox.fromUri("https://example.com/a.ts"), null);
    assert.equal(sandbox.fromUri("not a uri"), null);
  });
});
