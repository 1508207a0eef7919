/**
 * The pieces of project trust without a server: the user-level trust store (always in a temporary
 * SCALPEL_HOME), which roots can never be projects, how an untrusted project's secret exceptions
 * are split off, and the strict command line.
 */
import * as assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type CommandSpec, parseCommandLine, UsageError } from "../../src/cli-args.js";
import { forbiddenRootReason, isWithin } from "../../src/config/allowed-roots.js";
import { parseProjectConfig, splitSecretAllowances } from "../../src/config/project-config.js";
import {
  configDigest,
  TrustStore,
  trustFile,
  trustOf,
  whatTrustEnables,
  whatTrustWouldEnable,
} from "../../src/config/trust.js";
import { log } from "../../src/core/log.js";
import { openProject } from "../../src/project/open-project.js";
import { makeTempProject, type TempProject } from "../helpers/fixtures.js";

let tmp: TempProject;
let store: TrustStore;

before(async () => {
  tmp = await makeTempProject("scalpel-trust-unit-");
  store = new TrustStore(trustFile({ SCALPEL_HOME: join(tmp.base, "home") }));
});
after(() => tmp.cleanup());

test("trust is bound to the project's path and to the bytes of its project.yml", async () => {
  const a = configDigest("language_servers: {}\n");
  const b = configDigest("language_servers: {x: 1}\n");
  assert.notEqual(a, b);
  assert.equal(configDigest(null), "none");
  assert.equal(await store.state("/p/one", a), "untrusted");
  await store.trust("/p/one", a);
  assert.equal(await store.state("/p/one", a), "trusted");
  assert.equal(await store.state("/p/one", b), "changed");
  assert.equal(await store.state("/p/one/sub", a), "untrusted");
  assert.equal(await store.state("/p/two", a), "untrusted");
  assert.equal(await store.revoke("/p/one"), true);
  assert.equal(await store.revoke("/p/one"), false);
  assert.equal(await store.state("/p/one", a), "untrusted");
  assert.equal(trustOf("session").trusted, true);
  assert.equal(trustOf("changed").trusted, false);
});

test("a trust store that cannot be read trusts nothing, and is never overwritten", async () => {
  const broken = new TrustStore(join(tmp.base, "broken.json"));
  await writeFile(broken.file, '{"projects": {"/p": {"config": 7}}}');
  assert.equal(await broken.state("/p", "none"), "untrusted");
  await assert.rejects(broken.trust("/p", "none"), /not a valid trust store/);
});

test("/, the home folder, folders above it and system folders can never be projects", () => {
  const home = "/home/ann";
  for (const root of [
    "/",
    "/home",
    home,
    "/etc",
    "/etc/nginx",
    "/usr",
    "/usr/lib/x",
    "/proc/1",
    "/sys",
    "/dev",
    "/var",
    "/var/lib/docker",
    "/boot",
    "/tmp",
  ]) {
    assert.ok(forbiddenRootReason(root, home) !== null, `${root} must be refused`);
  }
  for (const root of [
    "/home/ann/code/shop",
    "/home/ann/.dotfiles",
    "/srv/app",
    "/var/www/site",
    "/tmp/x",
    "/opt/proj",
  ]) {
    assert.equal(forbiddenRootReason(root, home), null, `${root} must be allowed`);
  }
  assert.ok(isWithin("/a/b/c", ["/a/b"]));
  assert.ok(isWithin("/a/b", ["/a/b"]));
  assert.ok(!isWithin("/a/bc", ["/a/b"]));
});

test("an untrusted project keeps its secret patterns but not its exceptions", () => {
  assert.deepEqual(splitSecretAllowances(["*.secret", "!.env*", " !x", "\\!literal"]), {
    denies: ["*.secret", "\\!literal"],
    allowances: ["!.env*", " !x"],
  });
  const config = { secrets: ["!.env*", "*.vault"] };
  const make = (trusted: boolean) =>
    openProject(
      {
        root: tmp.dir,
        readOnly: false,
        config: { ...defaultLike(), ...config },
        trust: trustOf(trusted ? "trusted" : "untrusted"),
      },
      log,
    );
  const untrusted = make(false);
  assert.equal(untrusted.secrets.isSecret(".env"), true);
  assert.equal(untrusted.secrets.isSecret("a.vault"), true);
  assert.deepEqual(untrusted.ignoredSecretAllowances, ["!.env*"]);
  const trusted = make(true);
  assert.equal(trusted.secrets.isSecret(".env"), false);
  assert.deepEqual(trusted.ignoredSecretAllowances, []);
  // Without a trust given, a project is untrusted.
  assert.equal(openProject({ root: tmp.dir, readOnly: false }, log).trust.trusted, false);
});

function defaultLike() {
  return {
    ignored_paths: [],
    read_only: false,
    memory_dir: ".scalpel/memories",
    secrets: [],
    language_servers: {},
  };
}

const specs: Record<string, CommandSpec> = {
  mcp: {
    options: {
      project: { value: "PATH", help: "" },
      "read-only": { help: "" },
      "projects-in": { value: "DIR", repeat: true, help: "" },
    },
  },
  trust: { options: {}, positionals: { name: "PATH", max: 1 } },
  find_symbol: { options: { project: { value: "PATH", help: "" } }, openOptions: true },
};
const parse = (argv: string[]) => parseCommandLine(argv, (c) => specs[c]);

test("the command line is strict: unknown options, missing and unexpected values are errors", () => {
  const ok = parse(["mcp", "--project", "/p", "--read-only", "--projects-in=/a", "--projects-in", "/b"]);
  assert.equal(ok.command, "mcp");
  assert.equal(ok.options.get("project"), "/p");
  assert.equal(ok.options.get("read-only"), true);
  assert.deepEqual(ok.options.get("projects-in"), ["/a", "/b"]);
  // A switch takes no value: what follows it is not swallowed.
  assert.deepEqual(parse(["trust", "--help"]).options.get("help"), true);
  assert.deepEqual(parse(["trust", "dir"]).positionals, ["dir"]);
  const cases: Array<[string[], RegExp]> = [
    [
      ["mcp", "--readonly"],
      /Unknown option --readonly for 'mcp'\. Did you mean --read-only\?.*Valid options: --project PATH, --read-only, --projects-in DIR/,
    ],
    [["mcp", "--read-only=false"], /--read-only takes no value/],
    [["mcp", "--project"], /--project needs a value/],
    [["mcp", "--project", "--read-only"], /--project needs a value/],
    [["mcp", "--project", "/a", "--project", "/b"], /given twice/],
    [["mcp", "stray"], /Unexpected argument 'stray'/],
    [["trust", "a", "b"], /at most 1 PATH/],
    [["nope"], /Unknown command or tool 'nope'/],
    [["mcp", "-p"], /Unknown option '-p'/],
    [["mcp", "-rw"], /Unknown option '-rw'; options are spelt --name/],
    [["mcp", "--=x"], /Empty option '--=x'/],
    [["mcp", "--project="], /--project needs a non-empty PATH/],
    [["mcp", "--", "x"], /'--' is not supported/],
    // Before the command only --help and --version are known.
    [["--project", "/p", "mcp"], /^Unknown option --project\. Valid options: --help, --version\.$/],
    [["mcp", "--projekt", "/p"], /Unknown option --projekt for 'mcp'\. Did you mean --project\?/],
  ];
  for (const [argv, message] of cases) {
    assert.throws(
      () => parse(argv),
      (e: unknown) => e instanceof UsageError && message.test(e.message),
      argv.join(" "),
    );
  }
  // A tool's own parameters pass through, for the tool to check.
  const tool = parse(["find_symbol", "--project", "/p", "--name_path_pattern", "Foo", "--include_body"]);
  assert.equal(tool.options.get("name_path_pattern"), "Foo");
  assert.equal(tool.options.get("include_body"), true);
  // A value that reads like a short option (a negative number) is still the parameter's value.
  const negative = parse(["find_symbol", "--offset", "-1", "--depth=2", "--x", "--y", "v"]);
  assert.deepEqual(
    [...negative.options],
    [
      ["offset", "-1"],
      ["depth", "2"],
      ["x", true],
      ["y", "v"],
    ],
  );
});

test("what trust would enable is said by the adapters of the project's languages", async () => {
  const root = join(tmp.base, "langs");
  await mkdir(join(root, "src"), { recursive: true });
  const say = (languages: string[], declared: string[] = [], allow: string[] = []) =>
    whatTrustEnables(root, declared, languages, allow);
  assert.deepEqual(say(["rust"]).length, 1);
  assert.match(say(["rust"])[0]!, /^let rust-analyzer run build scripts and proc macros/);
  assert.match(say(["go"])[0]!, /cgo/);
  assert.match(say(["dart"])[0]!, /^start the Dart analysis server/);
  // The bundled TypeScript runs either way until the project ships its own.
  assert.deepEqual(say(["typescript"]), []);
  assert.deepEqual(say(["cobol"]), []);
  await mkdir(join(root, "node_modules", "typescript"), { recursive: true });
  await writeFile(join(root, "node_modules", "typescript", "package.json"), '{"version":"5.9.0"}');
  assert.match(say(["typescript"])[0]!, /node_modules\/typescript/);
  assert.deepEqual(
    say(["go", "typescript"], ["python"], ["!.env"]).map((l) => l.split(" ").slice(0, 3).join(" ")),
    ["start the language", "use the project's", "let gopls's go", "apply the secret"],
  );
  // A project not open: its languages are detected from its files (here Go and TypeScript).
  await writeFile(join(root, "src", "main.go"), "package main\n");
  await writeFile(join(root, "src", "a.ts"), "export const a = 1;\n");
  const onDisk = await whatTrustWouldEnable(root, parseProjectConfig(""));
  assert.deepEqual(onDisk.length, 2, onDisk.join("\n"));
  assert.ok(
    onDisk.some((l) => l.includes("gopls")) && onDisk.some((l) => l.includes("node_modules/typescript")),
  );
  const declaredOnly = await whatTrustWouldEnable(root, parseProjectConfig("languages: [rust]\n"));
  assert.deepEqual(declaredOnly.length, 1);
  assert.match(declaredOnly[0]!, /rust-analyzer/);
});
