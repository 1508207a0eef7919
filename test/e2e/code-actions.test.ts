// @backends tsserver native:full
/**
 * get_code_actions and apply_code_action on ts-actions (one folder, one tsconfig per case, so that
 * each case's `tsc -p <folder>` judges that case alone), through the SDK client: the missing-import
 * and implement-interface quick fixes, organize imports, extract to function with new_name (tsserver;
 * the native server offers no refactors and says so), several matches applying nothing, and a fix
 * that would change a secret file refused. After each: tsc passes, undo_edit restores the tree byte
 * for byte; every dry run writes nothing and shows the diff. One server for the whole file.
 */
import { strict as assert } from "node:assert";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { lineOf } from "../helpers/anchors.js";
import { hashTree, readText, runTsc, type TempProject } from "../helpers/fixtures.js";
import { callOk, type EditResult, type ScalpelHandle, serveFixture, stopServing } from "../helpers/mcp.js";

const native = process.env.SCALPEL_TS_BACKEND === "native";

interface Actions {
  relative_path: string;
  actions: Array<{ title: string; kind?: string; fixes?: string[]; preferred?: boolean }>;
  not_offered?: string[];
  complete: boolean;
}
type Applied = EditResult & { action?: { title: string; kind?: string } };

describe(`code actions (e2e, ${native ? "TypeScript 7 native" : "typescript-language-server"})`, () => {
  let fx: TempProject;
  let h: ScalpelHandle;
  let pristine: Record<string, string>;

  before(async () => {
    ({ fx, h } = await serveFixture("ts-actions"));
    pristine = await hashTree(fx.dir);
  });
  after(() => stopServing(h, fx));

  const tscOf = (folder: string) => runTsc(join(fx.dir, folder));
  const line = async (rel: string, anchor: string) => lineOf(await readText(fx.dir, rel), anchor);

  /** Dry run (nothing written, the diff shown), apply, tsc passes, undo restores every byte. */
  async function applyChecked(
    args: Record<string, unknown>,
    folder: string,
    diffHas: RegExp,
  ): Promise<Applied> {
    const dry = await callOk<Applied>(h, "apply_code_action", { ...args, dry_run: true });
    assert.equal(dry.applied, false);
    assert.match(dry.diff ?? "", diffHas);
    assert.deepEqual(await hashTree(fx.dir), pristine, "a dry run writes nothing");
    assert.notEqual(tscOf(folder).status, 0, "the case starts broken");
    const done = await callOk<Applied>(h, "apply_code_action", args);
    assert.equal(done.applied, true);
    assert.ok(done.edit_id);
    assert.ok(done.diagnostics_delta, "an applied action reports its diagnostics delta");
    const tsc = tscOf(folder);
    assert.equal(tsc.status, 0, tsc.output);
    await callOk(h, "undo_edit", { edit_id: done.edit_id });
    assert.deepEqual(await hashTree(fx.dir), pristine, "undo restores the tree byte for byte");
    return done;
  }

  it("lists quick fixes with the diagnostics they fix, and source actions", async () => {
    const at = await line("import-fix/total.ts", "new Money(0)");
    const r = await callOk<Actions>(h, "get_code_actions", {
      relative_path: "import-fix/total.ts",
      start_line: at,
    });
    const fix = r.actions.find((a) => a.title === 'Add import from "../lib/money"');
    assert.ok(fix, JSON.stringify(r.actions));
    assert.equal(fix.kind, "quickfix");
    assert.ok(
      fix.fixes?.some((f) => f.includes("2304") && f.includes("Money")),
      JSON.stringify(fix),
    );
    assert.ok(
      r.actions.some((a) => a.kind?.startsWith("source.")),
      "source actions listed",
    );
    const refactors = await callOk<Actions>(h, "get_code_actions", {
      relative_path: "import-fix/total.ts",
      start_line: at,
      kinds: ["refactor.extract"],
    });
    if (native) assert.deepEqual(refactors.not_offered, ["refactor.extract"], "said, not an empty list");
    else assert.ok(refactors.actions.some((a) => a.kind === "refactor.extract.function"));
  });

  it("adds the missing import", async () => {
    const at = await line("import-fix/total.ts", "new Money(0)");
    const r = await applyChecked(
      { relative_path: "import-fix/total.ts", start_line: at, title: "add import from" },
      "import-fix",
      /\+import \{ Money \} from "\.\.\/lib\/money";/,
    );
    assert.equal(r.action?.kind, "quickfix");
  });

  it("implements an interface", async () => {
    const at = await line("implement/book.ts", "class Book");
    await applyChecked(
      { relative_path: "implement/book.ts", start_line: at, kind: "quickfix", title: "Implement interface" },
      "implement",
      /\+\s+describe\(\): string \{/,
    );
  });

  it("organizes imports; with the unused import removed tsc passes", async () => {
    const args = { relative_path: "organize/report.ts", start_line: 1, kind: "source.organizeImports" };
    const dry = await callOk<Applied>(h, "apply_code_action", { ...args, dry_run: true });
    assert.match(dry.diff ?? "", /^-import \{ formatCents, Money \}/m);
    assert.deepEqual(await hashTree(fx.dir), pristine, "a dry run writes nothing");
    const organized = await callOk<Applied>(h, "apply_code_action", args);
    const ids = [organized.edit_id!];
    // Measured: tsls 5.3.0 sends "Organize Imports" to tsserver as sort-and-combine only; the
    // native server's removes unused imports too. "Remove Unused Imports" is offered by both.
    if (!native) {
      assert.notEqual(tscOf("organize").status, 0);
      const removed = await callOk<Applied>(h, "apply_code_action", {
        ...args,
        kind: "source.removeUnusedImports",
      });
      ids.push(removed.edit_id!);
    }
    assert.doesNotMatch(await readText(fx.dir, "organize/report.ts"), /Money/);
    const tsc = tscOf("organize");
    assert.equal(tsc.status, 0, tsc.output);
    for (const id of ids.reverse()) await callOk(h, "undo_edit", { edit_id: id });
    assert.deepEqual(await hashTree(fx.dir), pristine);
  });

  it("extracts a function and names it new_name through the server's rename", async (t) => {
    const from = await line("extract/stats.ts", "let squares = 0;");
    const args = {
      relative_path: "extract/stats.ts",
      start_line: from,
      end_line: from + 1,
      title: "function in module scope",
      new_name: "sumOfSquares",
    };
    if (native) {
      const r = await h.call("apply_code_action", args);
      assert.equal(r.isError, true);
      assert.match(r.text, /no_match|offers no code action/);
      assert.deepEqual(await hashTree(fx.dir), pristine);
      t.diagnostic("TypeScript 7.0.2's native server offers no refactors");
      return;
    }
    const dry = await callOk<Applied>(h, "apply_code_action", { ...args, dry_run: true });
    assert.match(dry.diff ?? "", /\+function sumOfSquares\(values: readonly number\[\], mean: number\)/);
    assert.match(dry.diff ?? "", /sumOfSquares\(values, mean\)/);
    assert.doesNotMatch(dry.diff ?? "", /newFunction/);
    assert.deepEqual(await hashTree(fx.dir), pristine);
    const done = await callOk<Applied>(h, "apply_code_action", args);
    assert.doesNotMatch(await readText(fx.dir, "extract/stats.ts"), /newFunction/);
    assert.equal(tscOf("extract").status, 0);
    await callOk(h, "undo_edit", { edit_id: done.edit_id });
    assert.deepEqual(await hashTree(fx.dir), pristine);
  });

  it("applies nothing when several actions match, and lists them", async () => {
    const r = await h.call("apply_code_action", {
      relative_path: "organize/report.ts",
      start_line: 1,
      title: "imports",
    });
    assert.equal(r.isError, true);
    assert.match(r.text, /multiple_matches/);
    assert.match(r.text, /Organize Imports/);
    assert.match(r.text, /Sort Imports/);
    assert.deepEqual(await hashTree(fx.dir), pristine);
  });

  it("refuses a fix that would change a secret file, writing nothing", {
    skip: native && "the native server offers no declare-member fix",
  }, async () => {
    const at = await line("secret/rotate.ts", "Keys.rotate()");
    for (const dry_run of [true, false]) {
      const r = await h.call("apply_code_action", {
        relative_path: "secret/rotate.ts",
        start_line: at,
        title: "Declare static method",
        dry_run,
      });
      assert.equal(r.isError, true, r.text);
      assert.match(r.text, /secret_file/);
      assert.doesNotMatch(r.text, /VAULT_MARKER/);
      assert.deepEqual(await hashTree(fx.dir), pristine);
    }
  });
});
