/**
 * Which project answered and the pre-scan that makes references independent of what was opened:
 * the tsconfig named from tsserver's `projectInfo` answer (the shape tsls 5.3.0 returns for
 * `typescript.tsserverRequest`, recorded from a real run), an inferred project said as such, the
 * files outside the project that name the symbol opened in path order up to the bound and the rest
 * named; Cargo packages found as the nearest Cargo.toml inside the root. The real server's side is
 * covered end to end in test/e2e/projects.test.ts.
 */
import * as assert from "node:assert/strict";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { adapters } from "../../language-servers/index.js";
import { log } from "../../src/core/log.js";
import { pathToUri } from "../../src/lsp/uri.js";
import { openProject } from "../../src/project/open-project.js";
import type { Project } from "../../src/project/project.js";
import {
  askPerBatch,
  maxOutsideFiles,
  outsideBatchSize,
  referenceScope,
} from "../../src/references/scope.js";
import { answeringProject } from "../../src/servers/answering-project.js";
import { makeTempProject, type TempProject } from "../helpers/fixtures.js";

const ts = adapters.find((a) => a.id === "typescript")!;
const rust = adapters.find((a) => a.id === "rust")!;

let tmp: TempProject;
let project: Project;

async function put(rel: string, text: string): Promise<void> {
  const abs = join(tmp.dir, rel);
  await mkdir(dirname(abs), { recursive: true });
  await writeFile(abs, text);
}

/**
 * Answers `projectInfo` like tsls 5.3.0 does, and records which files were opened. Its disk
 * reports are the test's to make (`changed`); `watched: false` is a session whose silence says
 * nothing (no watcher, or not on that directory).
 */
function tsServer(configFileName: string, fileNames: string[]) {
  const opened: string[] = [];
  const commands: unknown[][] = [];
  const listeners = new Set<(paths: readonly string[]) => void>();
  return {
    opened,
    commands,
    watched: true,
    /** Directories (project-relative) without a watch, as past a heavy directory's top. */
    unwatched: [] as string[],
    startedAt: 1,
    onDiskChange(listener: (paths: readonly string[]) => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    watches(absDir: string): boolean {
      return this.watched && !this.unwatched.some((rel) => join(tmp.dir, rel) === absDir);
    },
    changed(rels: string[]): void {
      for (const listener of listeners) listener(rels.map((rel) => join(tmp.dir, rel)));
    },
    async executeCommand<R>(command: string, args: unknown[]): Promise<R> {
      commands.push([command, ...args]);
      return {
        seq: 0,
        type: "response",
        command: "projectInfo",
        success: true,
        body: { configFileName, languageServiceDisabled: false, fileNames },
      } as R;
    },
    async sync(abs: string): Promise<void> {
      opened.push(abs.slice(tmp.dir.length + 1));
    },
  };
}

const outsideCount = maxOutsideFiles + 3;
const outsideFiles = Array.from({ length: outsideCount }, (_, i) => `test/t${String(i).padStart(3, "0")}.ts`);

before(async () => {
  tmp = await makeTempProject("scalpel-scope-");
  await put("tsconfig.json", '{ "include": ["src"] }');
  await put("src/widget.ts", "export class Widget {}\n");
  await put("src/use.ts", 'import { Widget } from "./widget";\nnew Widget();\n');
  for (const rel of outsideFiles) await put(rel, 'import { Widget } from "../src/widget";\nnew Widget();\n');
  await put("test/factory.ts", "export const WidgetFactory = 1; // another name, not a mention\n");
  await put("scripts/readme.md", "Widget\n");
  await put("node_modules/lib/index.ts", "export class Widget {}\n");
  await put("Cargo.toml", "[workspace]\n");
  await put("crates/core/Cargo.toml", "[package]\n");
  await put("crates/core/src/lib.rs", "pub fn f() {}\n");
  await put("loose/main.rs", "fn main() {}\n");
  project = openProject({ root: tmp.dir, readOnly: true, adapters }, log);
});

after(async () => {
  await tmp.cleanup();
});

const widget = () => ({
  abs: join(tmp.dir, "src/widget.ts"),
  uri: pathToUri(join(tmp.dir, "src/widget.ts")),
});

describe("referenceScope", () => {
  test("finds the files outside the tsconfig that name the symbol, in path order, up to the bound", async () => {
    const server = tsServer(join(tmp.dir, "tsconfig.json"), [
      "/usr/lib/node_modules/typescript/lib/lib.es5.d.ts",
      join(tmp.dir, "src/widget.ts"),
      join(tmp.dir, "src/use.ts"),
    ]);
    const r = await referenceScope({ project, session: server, adapter: ts, file: widget(), name: "Widget" });
    assert.deepEqual(server.commands[0], [
      "typescript.tsserverRequest",
      "projectInfo",
      { file: widget().abs, needFileNameList: true },
    ]);
    assert.equal(r.scope?.project, "tsconfig.json");
    assert.deepEqual([...(r.scope?.files ?? [])].sort(), ["src/use.ts", "src/widget.ts"]);
    // Files of the project itself, other names, other languages and ignored directories are left out.
    assert.deepEqual(
      r.outside.map((p) => p.rel),
      outsideFiles.slice(0, maxOutsideFiles),
    );
    assert.match(
      r.unchecked ?? "",
      /^3 more files outside tsconfig\.json mention Widget and were not checked: /,
    );
    for (const rel of outsideFiles.slice(maxOutsideFiles)) assert.ok(r.unchecked?.includes(rel), rel);
    assert.deepEqual(server.opened, [], "scoping opens nothing");
  });

  test("says nothing is missing when every mention is within the bound", async () => {
    const inProject = ["src/widget.ts", ...outsideFiles.slice(5)].map((r) => join(tmp.dir, r));
    const server = tsServer(join(tmp.dir, "tsconfig.json"), inProject);
    const r = await referenceScope({ project, session: server, adapter: ts, file: widget(), name: "Widget" });
    assert.deepEqual(
      r.outside.map((p) => p.rel),
      ["src/use.ts", ...outsideFiles.slice(0, 5)],
    );
    assert.equal(r.unchecked, undefined);
  });
});

describe("askPerBatch", () => {
  test("asks once per batch, the batch opened and the defining file re-opened before each question", async () => {
    const server = tsServer(join(tmp.dir, "tsconfig.json"), []);
    const q = { project, session: server, adapter: ts, file: widget(), name: "Widget" };
    const outside = outsideFiles.slice(0, outsideBatchSize + 2).map((rel) => project.sandbox.resolve(rel));
    const openAtAsk: number[] = [];
    const answers = await askPerBatch(q, outside, async () => openAtAsk.push(server.opened.length));
    assert.equal(answers.length, 2);
    assert.deepEqual(server.opened, [
      ...outsideFiles.slice(0, outsideBatchSize),
      "src/widget.ts",
      ...outsideFiles.slice(outsideBatchSize, outsideBatchSize + 2),
      "src/widget.ts",
    ]);
    assert.deepEqual(openAtAsk, [outsideBatchSize + 1, outsideBatchSize + 4]);
  });

  test("asks once when nothing outside needs opening", async () => {
    const server = tsServer(join(tmp.dir, "tsconfig.json"), []);
    const q = { project, session: server, adapter: ts, file: widget(), name: "Widget" };
    assert.deepEqual(await askPerBatch(q, [], async () => "asked"), ["asked"]);
  });
});

describe("answeringProject", () => {
  test("an inferred project is no project, with the note that its errors may be noise", async () => {
    const r = await answeringProject({
      sandbox: project.sandbox,
      adapter: ts,
      server: tsServer("/dev/null/inferredProject1*", []),
      file: widget(),
    });
    assert.equal(r?.project, null);
    assert.match(
      r?.note ?? "",
      /outside every tsconfig: checked as an inferred project with default options/,
    );
  });

  test("a tsconfig above the root is named without a host path", async () => {
    const r = await answeringProject({
      sandbox: project.sandbox,
      adapter: ts,
      server: tsServer(join(dirname(tmp.dir), "tsconfig.json"), []),
      file: widget(),
    });
    assert.equal(r?.project, null);
    assert.equal(r?.note, "answered by a tsconfig.json above the project root");
  });

  test("Rust: the nearest Cargo.toml up from the file, inside the root", async () => {
    const ask = (rel: string) =>
      answeringProject({
        sandbox: project.sandbox,
        adapter: rust,
        server: tsServer("unused", []),
        file: { abs: join(tmp.dir, rel), uri: pathToUri(join(tmp.dir, rel)) },
      });
    assert.equal((await ask("crates/core/src/lib.rs"))?.project, "crates/core/Cargo.toml");
    assert.equal((await ask("loose/main.rs"))?.project, "Cargo.toml");
  });

  test("an adapter that declares no way to tell names no project", async () => {
    const { project: _declared, ...withoutProject } = ts;
    const r = await answeringProject({
      sandbox: project.sandbox,
      adapter: withoutProject,
      server: tsServer("unused", []),
      file: widget(),
    });
    assert.equal(r, undefined);
  });
});

describe("referenceScope between calls", () => {
  const config = () => join(tmp.dir, "tsconfig.json");
  const inProject = () => ["src/widget.ts", "src/use.ts", ...outsideFiles].map((r) => join(tmp.dir, r));
  const query = (server: ReturnType<typeof tsServer>) => ({
    project,
    session: server,
    adapter: ts,
    file: widget(),
    name: "Widget",
  });
  const outsideOf = async (server: ReturnType<typeof tsServer>) =>
    (await referenceScope(query(server))).outside.map((p) => p.rel);

  test("a warm call asks the server nothing and reads no file until a change is reported", async () => {
    const server = tsServer(config(), inProject());
    assert.deepEqual(await outsideOf(server), []);
    await put("scripts/late.ts", "export const late = new Widget();\n");
    try {
      // Not reported yet: the answer is the one kept, so neither projectInfo nor the scan ran again.
      assert.deepEqual(await outsideOf(server), []);
      assert.equal(server.commands.length, 1);
      // Reported (a watcher event, or scalpel's own write): asked and scanned again.
      server.changed(["scripts/late.ts"]);
      assert.deepEqual(await outsideOf(server), ["scripts/late.ts"]);
      assert.equal(server.commands.length, 2);
      assert.deepEqual(await outsideOf(server), ["scripts/late.ts"]);
      assert.equal(server.commands.length, 2);
      // A file that stops mentioning the name drops out the same way.
      await put("scripts/late.ts", "export const late = 1;\n");
      server.changed(["scripts/late.ts"]);
      assert.deepEqual(await outsideOf(server), []);
    } finally {
      await rm(join(tmp.dir, "scripts/late.ts"), { force: true });
    }
  });

  test("changes to scalpel's own state under .scalpel/ keep what is known", async () => {
    const server = tsServer(config(), inProject());
    await outsideOf(server);
    server.changed([".scalpel/cache/symbols.json", ".scalpel/journal/1.json"]);
    await outsideOf(server);
    assert.equal(server.commands.length, 1);
  });

  test("scalpel's own folder, which the watcher leaves out, neither stops the reuse nor is scanned", async () => {
    await put(".scalpel/cache/stray.ts", "new Widget();\n");
    try {
      const server = tsServer(config(), inProject());
      // As the real watcher: nothing under .scalpel/ is watched.
      server.unwatched = [".scalpel", ".scalpel/cache"];
      assert.deepEqual(await outsideOf(server), []);
      await put("scripts/late.ts", "export const late = new Widget();\n");
      // Kept (measured before: a scan that listed .scalpel among the folders it read was never kept).
      assert.deepEqual(await outsideOf(server), []);
      assert.equal(server.commands.length, 1);
      server.changed(["scripts/late.ts"]);
      assert.deepEqual(await outsideOf(server), ["scripts/late.ts"]);
    } finally {
      await rm(join(tmp.dir, ".scalpel"), { recursive: true, force: true });
      await rm(join(tmp.dir, "scripts/late.ts"), { force: true });
    }
  });

  test("nothing is kept where a change would go unreported", async () => {
    const server = tsServer(config(), inProject());
    server.watched = false;
    assert.deepEqual(await outsideOf(server), []);
    await put("scripts/late.ts", "new Widget();\n");
    try {
      assert.deepEqual(await outsideOf(server), ["scripts/late.ts"]);
      assert.equal(server.commands.length, 2);
    } finally {
      await rm(join(tmp.dir, "scripts/late.ts"), { force: true });
    }
  });

  test("a scan that read an unwatched directory is made again; the project answer is kept", async () => {
    const server = tsServer(config(), inProject());
    server.unwatched = ["scripts"];
    assert.deepEqual(await outsideOf(server), []);
    await put("scripts/late.ts", "new Widget();\n");
    try {
      assert.deepEqual(await outsideOf(server), ["scripts/late.ts"]);
      assert.equal(server.commands.length, 1);
    } finally {
      await rm(join(tmp.dir, "scripts/late.ts"), { force: true });
    }
  });

  test("a kept scan is not used once a directory it read lost its watch", async () => {
    const server = tsServer(config(), inProject());
    assert.deepEqual(await outsideOf(server), []);
    await put("scripts/late.ts", "new Widget();\n");
    try {
      server.unwatched = ["scripts"];
      assert.deepEqual(await outsideOf(server), ["scripts/late.ts"]);
    } finally {
      await rm(join(tmp.dir, "scripts/late.ts"), { force: true });
    }
  });

  test("an inferred project's file list (whatever loose files are open) is asked for every call", async () => {
    const server = tsServer("/dev/null/inferredProject1*", [join(tmp.dir, "src/widget.ts")]);
    await outsideOf(server);
    await outsideOf(server);
    assert.equal(server.commands.length, 2);
  });

  test("a computation that a change overtook is not kept", async () => {
    const server = tsServer(config(), inProject());
    const ask = server.executeCommand.bind(server);
    // The change is reported while projectInfo is in flight.
    server.executeCommand = async <R>(command: string, args: unknown[]): Promise<R> => {
      server.changed(["src/use.ts"]);
      return ask<R>(command, args);
    };
    await outsideOf(server);
    server.executeCommand = ask;
    await outsideOf(server);
    assert.equal(server.commands.length, 2);
  });
});
