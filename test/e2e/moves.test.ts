// @backends tsserver native:full
/**
 * move_symbol and move_file on ts-moves through the SDK client, one server for the file: a function
 * moved to a new and to an existing file (tsserver's "Move to file"; the native server has no such
 * refactor and says so), a module moved into a subfolder (both backends, scripts/ outside the
 * tsconfig included). Each: the dry run writes nothing and shows the diff; applied, tsc passes and
 * no import names the old place; undo_edit restores the tree byte for byte.
 */
import { strict as assert } from "node:assert";
import { after, before, describe, it } from "node:test";
import { hashTree, readText, runTsc, type TempProject } from "../helpers/fixtures.js";
import {
  callOk,
  type EditResult,
  editedFiles,
  parseDiagnostics,
  type ScalpelHandle,
  serveFixture,
  stopServing,
} from "../helpers/mcp.js";

const native = process.env.SCALPEL_TS_BACKEND === "native";

type Moved = EditResult & { complete?: false; incomplete_reason?: string };

const importers = ["src/app.ts", "src/report.ts", "src/util/strings.ts"];

describe(`moves (e2e, ${native ? "TypeScript 7 native" : "typescript-language-server"})`, () => {
  let fx: TempProject;
  let h: ScalpelHandle;
  let pristine: Record<string, string>;

  before(async () => {
    ({ fx, h } = await serveFixture("ts-moves"));
    pristine = await hashTree(fx.dir);
  });
  after(() => stopServing(h, fx));

  /** Dry run (nothing written, diff shown), apply, tsc passes, `check` on the result, undo. */
  async function moved(
    tool: string,
    args: Record<string, unknown>,
    diffHas: RegExp,
    check: () => Promise<void>,
  ) {
    const dry = await callOk<Moved>(h, tool, { ...args, dry_run: true });
    assert.equal(dry.applied, false);
    assert.match(dry.diff ?? "", diffHas);
    assert.deepEqual(await hashTree(fx.dir), pristine, "a dry run writes nothing");
    const done = await callOk<Moved>(h, tool, args);
    assert.equal(done.applied, true);
    assert.ok(done.edit_id);
    assert.ok(done.diagnostics_delta, "a move reports its diagnostics delta");
    // The only new errors may be in files the answer names as not updated.
    const unnamed = parseDiagnostics(done.diagnostics_delta.new).filter(
      (d) => !(done.incomplete_reason ?? "").includes(d.relative_path ?? ""),
    );
    assert.deepEqual(unnamed, [], "no new errors beyond the files named as not updated");
    // A created file and a moved file's old path are compared too, not skipped as unreadable.
    assert.doesNotMatch(done.diagnostics_delta.incomplete_reason ?? "", /no diagnostics/);
    const tsc = runTsc(fx.dir);
    assert.equal(tsc.status, 0, tsc.output);
    await check();
    await callOk(h, "undo_edit", { edit_id: done.edit_id });
    assert.deepEqual(await hashTree(fx.dir), pristine, "undo restores the tree byte for byte");
    return done;
  }

  it("move_file into a subfolder updates every importer, scripts outside the tsconfig too", async () => {
    const r = await moved(
      "move_file",
      { relative_path: "src/util/strings.ts", to_path: "src/util/text/strings.ts" },
      /\+import \{ head \} from "\.\/util\/text\/strings";/,
      async () => {
        for (const rel of ["src/app.ts", "src/report.ts", "scripts/check.ts"])
          assert.doesNotMatch(await readText(fx.dir, rel), /util\/strings"/, rel);
        // Its own relative import follows it one folder down.
        assert.match(await readText(fx.dir, "src/util/text/strings.ts"), /from "\.\.\/\.\.\/lib\/math"/);
        await assert.rejects(readText(fx.dir, "src/util/strings.ts"), "the old file is gone");
      },
    );
    assert.equal(r.complete, undefined, r.incomplete_reason);
  });

  it("move_file refuses a target that exists and a secret one, writing nothing", async () => {
    for (const to_path of ["src/lib/format.ts", "keys/strings.ts"]) {
      const r = await h.call("move_file", { relative_path: "src/util/strings.ts", to_path });
      assert.equal(r.isError, true, r.text);
      assert.match(r.text, to_path === "keys/strings.ts" ? /secret/i : /already exists/);
    }
    assert.deepEqual(await hashTree(fx.dir), pristine);
  });

  if (native) {
    it("move_symbol answers not_supported, naming the server and why", async () => {
      const r = await h.call("move_symbol", {
        name_path: "clamp",
        relative_path: "src/lib/math.ts",
        to_file: "src/lib/clamp.ts",
      });
      assert.equal(r.isError, true);
      assert.match(r.text, /not_supported/);
      assert.match(r.text, /typescript-go.*offers no refactor/);
      assert.deepEqual(await hashTree(fx.dir), pristine);
    });
    return;
  }

  const noOldImport = async () => {
    for (const rel of importers)
      assert.doesNotMatch(
        await readText(fx.dir, rel),
        /import \{[^}]*\bclamp\b[^}]*\} from "[./]*lib\/math"/,
        rel,
      );
  };

  it("move_symbol to a new file moves the doc comment and updates the imports", async () => {
    const r = await moved(
      "move_symbol",
      { name_path: "clamp", relative_path: "src/lib/math.ts", to_file: "src/lib/clamp.ts" },
      /\+\+\+ b\/src\/lib\/clamp\.ts/,
      async () => {
        const moved = await readText(fx.dir, "src/lib/clamp.ts");
        assert.match(moved, /^\/\*\* Keeps `value` between `low` and `high`\. \*\/\nexport function clamp/);
        assert.doesNotMatch(await readText(fx.dir, "src/lib/math.ts"), /export function clamp/);
        await noOldImport();
      },
    );
    // tsserver's refactor stays in the tsconfig's project: the script is named, not silently left.
    assert.equal(r.complete, false);
    assert.match(r.incomplete_reason ?? "", /scripts\/check\.ts/);
    assert.ok(editedFiles(r).some((f) => f.relative_path === "src/lib/clamp.ts"));
  });

  it("move_symbol to an existing file appends it there", async () => {
    await moved(
      "move_symbol",
      { name_path: "clamp", relative_path: "src/lib/math.ts", to_file: "src/lib/format.ts" },
      /\+\+\+ b\/src\/lib\/format\.ts/,
      async () => {
        const format = await readText(fx.dir, "src/lib/format.ts");
        assert.match(format, /export function pad[\s\S]*export function clamp/);
        await noOldImport();
      },
    );
  });
});
