// @backends tsserver native:full
/**
 * get_change_impact on a TypeScript repository (test/fixtures/ts-impact: `base` committed, `work`
 * left as uncommitted changes): a signature change with three callers outside the change and one
 * updated inside it, a removed function still called, an interface that gained a method (one
 * implementation updated, one not), a renamed function, a function moved to a new untracked file
 * (its importer not updated), a deleted file whose function is still imported, body-only changes.
 * The repository is hostile: its git config names an fsmonitor hook, an external diff, a textconv
 * driver, clean/smudge filters, a hooks folder, a pager and an ssh command. Plain git on it runs
 * them (the control); scalpel runs none and still answers right.
 */
import { strict as assert } from "node:assert";
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { lineOf } from "../helpers/anchors.js";
import {
  affectedOf,
  armHostile,
  changeRepo,
  clearMarkers,
  errorsOf,
  gitWith,
  hostilePrograms,
  type ChangeImpact as Impact,
  markersIn,
  plainGitRuns,
} from "../helpers/change-repo.js";
import type { TempProject } from "../helpers/fixtures.js";
import { callOk, type ScalpelHandle, sitesOf, startScalpel } from "../helpers/mcp.js";

describe("get_change_impact (e2e, TypeScript, hostile git config)", () => {
  let fx: TempProject;
  let h: ScalpelHandle;
  let markers: string;
  let impact: Impact;
  let text: string;
  const work = (rel: string) => readFileSync(join(fx.dir, rel), "utf8");

  before(async () => {
    fx = await changeRepo("ts-impact", ["src/legacy.ts"]);
    markers = armHostile(fx, "*.ts");
    plainGitRuns(fx.dir);
    // The control: the armed config is live for git as a person runs it.
    for (const m of ["fsmonitor", "extdiff", "textconv", "clean"]) {
      assert.ok(
        markersIn(markers).includes(m),
        `plain git did not run ${m}: ${markersIn(markers).join(", ")}`,
      );
    }
    clearMarkers(markers);
    h = await startScalpel({ project: fx.dir });
    const r = await h.call<Impact>("get_change_impact", {});
    assert.equal(r.isError, false, r.text);
    impact = r.structured;
    text = r.text;
  });
  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  const symbolsOf = (rel: string) =>
    impact.changed.find((f) => f.relative_path === rel)?.symbols.map((s) => `${s.name_path} ${s.change}`) ??
    [];
  const affected = (name: string) => affectedOf(impact, name);
  const errorsIn = (rel: string) => errorsOf(impact, rel);

  it("lists the changed files and what changed in each symbol", () => {
    assert.match(impact.base, /^HEAD \([0-9a-f]{12}\)$/);
    assert.deepEqual(
      impact.changed.map((f) => `${f.relative_path} ${f.status}`),
      [
        "src/app.ts modified",
        "src/banner.ts modified",
        "src/extra.ts added",
        "src/format.ts modified",
        "src/greet.ts modified",
        "src/legacy.ts deleted",
        "src/shape.ts modified",
      ],
    );
    assert.deepEqual(symbolsOf("src/greet.ts"), [
      "greet signature",
      "farewell removed",
      "shout body",
      "twicePlusOne renamed",
    ]);
    const greet = impact.changed.find((f) => f.relative_path === "src/greet.ts")!;
    assert.equal(greet.symbols.find((s) => s.name_path === "twicePlusOne")?.from, "oldName");
    assert.equal(greet.symbols.find((s) => s.name_path === "shout")?.users, 1, "loud() calls it");
    assert.deepEqual(symbolsOf("src/shape.ts").sort(), ["Shape/perimeter added", "Square/perimeter added"]);
    assert.deepEqual(symbolsOf("src/extra.ts"), ["extra added", "pad renamed"]);
    const moved = impact.changed.find((f) => f.relative_path === "src/extra.ts")!.symbols[1];
    assert.equal(moved?.from, "src/format.ts:pad");
    assert.deepEqual(symbolsOf("src/format.ts"), [], "the moved function is told where it went");
    assert.deepEqual(symbolsOf("src/banner.ts"), ["banner body"]);
    assert.equal(impact.complete, true, impact.incomplete_reason);
  });

  it("a changed signature: the three callers outside the change, not the one updated in it; the test file named", () => {
    const greet = affected("greet");
    assert.equal(greet.reason, "signature");
    const sites = sitesOf(greet).map((s) => `${s.relative_path}:${s.line} ${s.container}`);
    assert.deepEqual(sites, [
      `src/app.ts:${lineOf(work("src/app.ts"), 'greet("ann")')} welcome`,
      `src/app.ts:${lineOf(work("src/app.ts"), 'greet("bob")')} welcomeBack`,
      `src/greet.test.ts:${lineOf(work("src/greet.test.ts"), 'greet("test")')} greets`,
    ]);
    assert.equal(greet.sites, 3);
    assert.deepEqual(greet.tests, ["src/greet.test.ts"]);
    const welcome = errorsIn("src/app.ts").filter((d) => d.code === "2554");
    assert.deepEqual(
      welcome.map((d) => d.line),
      [lineOf(work("src/app.ts"), 'greet("ann")'), lineOf(work("src/app.ts"), 'greet("bob")')],
    );
    assert.equal(errorsIn("src/greet.test.ts")[0]?.code, "2554");
    assert.deepEqual(errorsIn("src/banner.ts"), [], "the caller updated in the change compiles");
  });

  it("a removed function still called: its caller listed, the compile error beside it", () => {
    const farewell = affected("farewell");
    assert.equal(farewell.reason, "removed");
    assert.deepEqual(
      sitesOf(farewell).map((s) => `${s.relative_path}:${s.line} ${s.container}`),
      [`src/app.ts:${lineOf(work("src/app.ts"), 'farewell("dan")')} leave`],
    );
    assert.ok(errorsIn("src/app.ts").some((d) => d.code === "2305" && /farewell/.test(d.message)));
  });

  it("an interface that gained a method: its implementations, the one not updated failing", () => {
    const shape = affected("Shape");
    assert.equal(shape.reason, "member_added");
    const impls = (shape.implementations ?? []).map((f) => f.split("\n")[0]).sort();
    assert.deepEqual(impls, ["src/circle.ts", "src/shape.ts"]);
    assert.ok((shape.implementations ?? []).some((f) => /^Circle \[Class\]/m.test(f)));
    assert.ok((shape.implementations ?? []).some((f) => /^Square \[Class\]/m.test(f)));
    assert.equal(errorsIn("src/circle.ts")[0]?.code, "2420");
    assert.deepEqual(errorsIn("src/shape.ts"), []);
  });

  it("a rename whose users were all updated, and body changes, have no users outside the change", () => {
    const renamed = affected("oldName");
    assert.equal(renamed.reason, "renamed");
    assert.equal(renamed.sites, 0);
    assert.equal(
      impact.affected.find((a) => a.name_path === "shout"),
      undefined,
      "a body change lists no users",
    );
    assert.deepEqual(impact.affected.map((a) => a.name_path).sort(), [
      "Shape",
      "farewell",
      "greet",
      "legacyTotal",
      "oldName",
      "pad",
    ]);
  });

  it("a function moved to another file: its importer that still names the old place, with its error", () => {
    const pad = affected("pad");
    assert.equal(pad.reason, "renamed");
    assert.equal(pad.relative_path, "src/format.ts");
    const label = work("src/label.ts");
    assert.deepEqual(
      sitesOf(pad).map((s) => `${s.relative_path}:${s.line} ${s.import ? "import" : s.container}`),
      ["src/label.ts:1 import", `src/label.ts:${lineOf(label, "pad(text)")} label`],
    );
    assert.ok(errorsIn("src/label.ts").some((d) => d.code === "2305" && /'pad'/.test(d.message)));
  });

  it("a deleted file: its symbols (asked of the server about the base text) and their users left behind", () => {
    assert.deepEqual(symbolsOf("src/legacy.ts"), ["legacyTotal removed"]);
    const legacy = affected("legacyTotal");
    assert.equal(legacy.reason, "removed");
    const report = work("src/report.ts");
    assert.deepEqual(
      sitesOf(legacy).map((s) => `${s.relative_path}:${s.line} ${s.import ? "import" : s.container}`),
      ["src/report.ts:1 import", `src/report.ts:${lineOf(report, "legacyTotal([")} report`],
    );
    assert.equal(errorsIn("src/report.ts")[0]?.code, "2307");
  });

  it("the text form is the same review, readable", () => {
    assert.match(
      text,
      /^Change against HEAD \([0-9a-f]{12}\): 7 files, 11 symbols changed, 6 affected symbols, 7 errors/,
    );
    assert.match(text, /^src\/greet\.ts modified\n {2}greet {2}signature\n {2}farewell {2}removed/m);
    assert.match(text, /^greet \[signature\] src\/greet\.ts: 3 sites \(tests: src\/greet\.test\.ts\)$/m);
    assert.match(text, /^Errors now:$/m);
  });

  it("no program the repository's git config names ran", () => {
    assert.deepEqual(
      markersIn(markers),
      [],
      `ran: ${markersIn(markers).join(", ")} of ${hostilePrograms.join(", ")}`,
    );
    assert.deepEqual(h.hostPathLeaks, []);
  });

  it("affected symbols are paged: offset, total, and a shortened answer's next call", async () => {
    const all = impact.affected.map((a) => a.name_path);
    assert.equal(impact.total, all.length);
    const rest = await callOk<Impact>(h, "get_change_impact", { offset: 3 });
    assert.equal(rest.total, all.length);
    assert.deepEqual(
      rest.affected.map((a) => a.name_path),
      all.slice(3),
    );
    const short = await callOk<Impact & { truncated?: boolean; next?: string }>(h, "get_change_impact", {
      max_answer_chars: 1200,
    });
    assert.equal(short.truncated, true);
    assert.match(short.next ?? "", /^get_change_impact \{.*"offset":\d+/);
  });

  it("paths narrows the review; an unknown base or a folder that is no repository is a clear error", async () => {
    const narrowed = await callOk<Impact>(h, "get_change_impact", { paths: ["src/shape.ts"] });
    assert.deepEqual(
      narrowed.changed.map((f) => f.relative_path),
      ["src/shape.ts"],
    );
    const unknown = await h.call("get_change_impact", { base: "no-such-branch" });
    assert.equal(unknown.isError, true);
    assert.match(unknown.text, /base 'no-such-branch' names no commit/);
    const option = await h.call("get_change_impact", { base: "--output=x" });
    assert.equal(option.isError, true);
    assert.match(option.text, /not a commit-ish/);
    renameSync(join(fx.dir, ".git"), join(fx.base, "git-away"));
    try {
      const none = await h.call("get_change_impact", {});
      assert.equal(none.isError, true);
      assert.match(none.text, /not a git repository/);
    } finally {
      renameSync(join(fx.base, "git-away"), join(fx.dir, ".git"));
    }
    // Objects borrowed from another repository would be read outside the project.
    const alternates = join(fx.dir, ".git", "objects", "info", "alternates");
    writeFileSync(alternates, `${fx.base}/elsewhere/objects\n`);
    try {
      const borrowed = await h.call("get_change_impact", {});
      assert.equal(borrowed.isError, true);
      assert.match(borrowed.text, /alternates/);
    } finally {
      rmSync(alternates);
    }
    assert.deepEqual(markersIn(markers), []);
  });

  it("a crafted base tree naming ../ or .git paths: those entries are never taken for project files", async () => {
    // git's checkout refuses such entries, but its object store holds what a repository ships.
    const run = (args: string[], input?: string) => gitWith(fx.dir, args, input).trim();
    const blob = run(["hash-object", "-w", "--stdin"], "export const outside = 1;\n");
    const inner = run(["mktree"], `100644 blob ${blob}\toutside.ts\n`);
    const top = run(["ls-tree", "HEAD"]);
    const tree = run(["mktree"], `${top}\n040000 tree ${inner}\t..\n040000 tree ${inner}\t.git\n`);
    const commit = run(["commit-tree", tree, "-p", "HEAD", "-m", "crafted"]);
    const r = await callOk<Impact>(h, "get_change_impact", { base: commit });
    const paths = r.changed.map((f) => f.relative_path);
    assert.ok(
      paths.every((p) => !p.split("/").some((part) => part === ".." || part === ".git")),
      `a crafted path was taken for a project file: ${paths.join(", ")}`,
    );
    assert.deepEqual(
      paths,
      impact.changed.map((f) => f.relative_path),
      "the same change as against HEAD",
    );
  });
});
