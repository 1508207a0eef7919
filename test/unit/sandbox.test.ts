import * as assert from "node:assert/strict";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { AppError } from "../../src/core/errors.js";
import { workspaceEditToPlan } from "../../src/edits/workspace-edit.js";
import { type CheckedPath, type Located, Sandbox } from "../../src/security/sandbox.js";
import { SecretRules } from "../../src/security/secrets.js";
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
  const fileRel = (where: Located) => (where.kind === "file" ? where.path.rel : where.kind);
  test("inside → checked path", () => {
    assert.equal(sandbox.fromAbsolute(join(tmp.dir, "src", "a.ts"))?.rel, "src/a.ts");
    assert.equal(fileRel(sandbox.fromUri(pathToFileURL(join(tmp.dir, "src", "a.ts")).href)), "src/a.ts");
    assert.equal(fileRel(sandbox.fromUri(pathToFileURL(join(tmp.dir, "src", "new.ts")).href)), "src/new.ts");
    assert.equal(sandbox.fromAbsolute(tmp.dir)?.rel, ".");
  });

  test("outside, through a symlink, or not a file URI → outside / null", () => {
    assert.equal(sandbox.fromAbsolute(join(tmp.base, "secret.txt")), null);
    assert.equal(sandbox.fromAbsolute(join(tmp.dir, "link-out.txt")), null);
    assert.equal(sandbox.fromAbsolute(join(tmp.dir, "linkdir-out", "new.txt")), null);
    assert.equal(sandbox.fromAbsolute("relative/path.ts"), null);
    for (const uri of [
      pathToFileURL(join(tmp.base, "secret.txt")).href,
      pathToFileURL(join(tmp.dir, "..", "secret.txt")).href,
      pathToFileURL(join(tmp.dir, "link-out.txt")).href,
      "untitled:Untitled-1",
      "https://example.com/a.ts",
      "not a uri",
    ]) {
      assert.deepEqual(sandbox.fromUri(uri), { kind: "outside" }, uri);
    }
  });
});

describe("the gate owns secrets", () => {
  let stmp: TempProject;
  let gate: Sandbox;
  const uri = (rel: string) => pathToFileURL(join(stmp.dir, ...rel.split("/"))).href;

  before(async () => {
    stmp = await makeTempProject("scalpel-sandbox-secret-");
    const root = stmp.dir;
    await mkdir(join(root, "src", "vault"), { recursive: true });
    await mkdir(join(root, "conf"), { recursive: true });
    await writeFile(join(root, "src", "a.ts"), "export const a = 1;\n");
    await writeFile(join(root, "src", "vault", "creds.ts"), "export const k = 'x';\n");
    await writeFile(join(root, "src", "vault", "readme.md"), "# vault\n");
    await writeFile(join(root, ".env"), "K=v\n");
    await writeFile(join(root, ".env.example"), "K=\n");
    await writeFile(join(root, "conf", "tls.key"), "k\n");
    await symlink(".env", join(root, "env-alias.txt")); // a harmless name for a secret file
    await symlink(join(root, "src", "vault", "creds.ts"), join(root, "src", "creds-alias.ts"));
    await symlink("vault", join(root, "src", "vault-alias")); // a harmless name for a secret dir
    await symlink("src", join(root, "src-alias")); // an ordinary dir, with a secret one inside
    await symlink(stmp.base, join(root, "out-link"));
    gate = new Sandbox(root, new SecretRules(["src/vault/**", "!src/vault/readme.md"]));
  });
  after(() => stmp.cleanup());

  const secret = (fn: () => unknown): AppError => {
    try {
      fn();
    } catch (e) {
      assert.ok(e instanceof AppError, String(e));
      assert.equal(e.code, "secret_file");
      assert.ok(!e.message.includes(stmp.base), `message leaks a host path: ${e.message}`);
      assert.match(e.message, /'!.+' under 'secrets' in \.scalpel\/project\.yml/, "says how to allow it");
      return e;
    }
    assert.fail("expected secret_file");
  };

  test("resolve refuses secret paths as spelled (default and project patterns), for reading and for creating", () => {
    for (const rel of [
      ".env",
      "./.env",
      "src/vault/creds.ts",
      "src/vault",
      "conf/tls.key",
      "src/vault/new.ts",
      ".env.local",
    ]) {
      secret(() => gate.resolve(rel));
    }
    const e = secret(() => gate.resolve("src/vault/creds.ts", { mustExist: true, kind: "file" }));
    assert.match(e.message, /'!src\/vault\/creds\.ts'/);
  });

  test("resolve refuses a symlink whose target is secret, whatever its own name", () => {
    const e = secret(() => gate.resolve("env-alias.txt"));
    assert.match(e.message, /'\.env'/, "names the target");
    secret(() => gate.resolve("src/creds-alias.ts"));
    secret(() => gate.resolve("src/vault-alias/creds.ts"));
    secret(() => gate.resolve("src-alias/vault/creds.ts"));
    secret(() => gate.resolve("src/vault-alias/new.ts"));
  });

  test("allowed files stay readable: templates, a '!' exception, ordinary links", () => {
    assert.equal(gate.resolve(".env.example").rel, ".env.example");
    assert.equal(gate.resolve("src/vault/readme.md").rel, "src/vault/readme.md");
    assert.equal(gate.resolve("src/vault-alias/readme.md").rel, "src/vault-alias/readme.md");
    assert.equal(gate.resolve("src-alias/a.ts").rel, "src-alias/a.ts");
  });

  test("resolveName lists secret names but its result is no CheckedPath", () => {
    const dir = gate.resolveName("src/vault", { mustExist: true, kind: "dir" });
    assert.equal(dir.rel, "src/vault");
    assert.equal(gate.resolveName(".env", { mustExist: true }).rel, ".env");
    // Still the sandbox: names outside the root are refused all the same.
    refused(() => gate.resolveName("../x"));
    refused(() => gate.resolveName("out-link"));
    // @ts-expect-error a NamedPath cannot be passed where a CheckedPath is required
    const asChecked: CheckedPath = dir;
    assert.ok(asChecked);
  });

  test("fromUri tells a secret file (by path) from a readable one and from outside", () => {
    assert.deepEqual(gate.fromUri(uri(".env")), { kind: "secret", rel: ".env", file: ".env" });
    assert.deepEqual(gate.fromUri(uri("src/vault/creds.ts")), {
      kind: "secret",
      rel: "src/vault/creds.ts",
      file: "src/vault/creds.ts",
    });
    // Reported where the server says it is; the file to allow is the link's target.
    assert.deepEqual(gate.fromUri(uri("src/creds-alias.ts")), {
      kind: "secret",
      rel: "src/creds-alias.ts",
      file: "src/vault/creds.ts",
    });
    const ok = gate.fromUri(uri("src/a.ts"));
    assert.equal(ok.kind === "file" ? ok.path.rel : ok.kind, "src/a.ts");
    assert.deepEqual(gate.fromUri(pathToFileURL(join(stmp.base, "x.env")).href), { kind: "outside" });
    assert.equal(gate.fromAbsolute(join(stmp.dir, ".env")), null);
  });

  test("walker mints walked files, skipping secret ones (by name, by link target, below an aliased start)", () => {
    const root = gate.walker(gate.resolve("."));
    const minted = (mint: (rel: string) => CheckedPath | null, rels: string[]) =>
      rels.filter((r) => mint(r) !== null);
    assert.deepEqual(
      minted(root, [
        ".env",
        ".env.example",
        "env-alias.txt",
        "src/a.ts",
        "src/creds-alias.ts",
        "src/vault/creds.ts",
        "src/vault/readme.md",
        "conf/tls.key",
      ]),
      [".env.example", "src/a.ts", "src/vault/readme.md"],
    );
    const aliased = gate.walker(gate.resolve("src-alias", { mustExist: true, kind: "dir" }));
    assert.deepEqual(
      minted(aliased, ["src-alias/a.ts", "src-alias/vault/creds.ts", "src-alias/vault/readme.md"]),
      ["src-alias/a.ts", "src-alias/vault/readme.md"],
    );
    assert.equal(aliased("src-alias/a.ts")?.abs, join(stmp.dir, "src-alias", "a.ts"));
  });

  test("a WorkspaceEdit that touches a secret file is refused whole, naming every secret target", () => {
    const edit = (newText: string) => [
      { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, newText },
    ];
    const e = secret(() =>
      workspaceEditToPlan(
        {
          changes: {
            [uri("src/a.ts")]: edit("x"),
            [uri("src/creds-alias.ts")]: edit("y"),
            [uri(".env")]: edit("z"),
          },
        },
        gate,
      ),
    );
    assert.deepEqual(e.details?.files, [".env", "src/vault/creds.ts"]);
    secret(() =>
      workspaceEditToPlan(
        { documentChanges: [{ kind: "rename", oldUri: uri("src/a.ts"), newUri: uri("src/vault/a.ts") }] },
        gate,
      ),
    );
    const plan = workspaceEditToPlan({ changes: { [uri("src/vault/readme.md")]: edit("# x") } }, gate);
    assert.equal(
      plan[0]?.kind === "edit" ? plan[0].path.rel : "",
      "src/vault/readme.md",
      "an allowed file is fine",
    );
  });

  test("without project rules the built-in patterns still hold", () => {
    const plain = new Sandbox(stmp.dir);
    secret(() => plain.resolve(".env"));
    secret(() => plain.resolve("env-alias.txt"));
    assert.equal(plain.resolve("src/vault/creds.ts").rel, "src/vault/creds.ts");
  });
});
