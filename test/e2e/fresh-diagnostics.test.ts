// @backends tsserver native
/**
 * Disk is the truth (issue #8, acceptance 1): a dependency changed on disk by ANOTHER OS process is
 * seen by the very first get_diagnostics_for_file of a file that imports it, with no sleep between
 * the write and the call, 20 times in a row; so are its revert, a file created and deleted by
 * another process, and an atomic write (temp file renamed over the original). The dependency is
 * never opened by scalpel: only the watcher and the server's registered globs can tell tsserver.
 * Before the project watcher, the first answer after such a write was `[]`, `complete: true`.
 */
import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { lineOf } from "../helpers/anchors.js";
import { readText, type TempProject } from "../helpers/fixtures.js";
import { callOk, type Diagnostic, type ScalpelHandle, serveFixture, stopServing } from "../helpers/mcp.js";

interface DiagResult {
  relative_path: string;
  diagnostics: Diagnostic[];
  complete: boolean;
  incomplete_reason?: string;
}

/** Runs `script` in a separate node process (argv[1..] = args), as an editor or git would write. */
function inAnotherProcess(script: string, ...args: string[]): void {
  execFileSync(process.execPath, ["-e", `const fs = require('node:fs'); ${script}`, ...args]);
}

const write = (path: string, content: string) =>
  inAnotherProcess("fs.writeFileSync(process.argv[1], process.argv[2])", path, content);
/** Write to a temp file, then rename it over the target (editors' and formatters' atomic save). */
const writeAtomically = (path: string, content: string) =>
  inAnotherProcess(
    "fs.writeFileSync(process.argv[1] + '.tmp~', process.argv[2]); fs.renameSync(process.argv[1] + '.tmp~', process.argv[1])",
    path,
    content,
  );
const remove = (path: string) => inAnotherProcess("fs.rmSync(process.argv[1])", path);

describe("fresh diagnostics after changes by other processes (e2e, typescript-language-server)", () => {
  let fx: TempProject;
  let h: ScalpelHandle;
  let dep: string;
  let main: string;

  before(async () => {
    ({ fx, h } = await serveFixture("ts-fresh"));
    dep = await readText(fx.dir, "src/dep.ts");
    main = await readText(fx.dir, "src/main.ts");
  });

  after(() => stopServing(h, fx));

  const errors = async (relative_path: string) => {
    const r = await callOk<DiagResult>(h, "get_diagnostics_for_file", {
      relative_path,
      min_severity: "error",
    });
    assert.equal(r.complete, true, `complete (${r.incomplete_reason ?? ""})`);
    return r.diagnostics;
  };
  const brief = (ds: Diagnostic[]) => ds.map((d) => [d.line, d.code]);
  const depPath = () => `${fx.dir}/src/dep.ts`;
  // Renaming the export breaks line 1 of main.ts (the import) and the call site.
  const broken = () => dep.replace("export function scale(", "export function scaleBy(");

  it("starts clean", async () => {
    assert.deepEqual(await errors("src/main.ts"), []);
  });

  it("a dependency broken and reverted by another process: the first call sees it, 20 times", async () => {
    const importLine = lineOf(main, "import { scale, unit }");
    const took: number[] = [];
    for (let i = 0; i < 20; i++) {
      write(depPath(), broken());
      let t = Date.now();
      const bad = await errors("src/main.ts");
      took.push(Date.now() - t);
      assert.ok(
        bad.some((d) => d.line === importLine && /scale/.test(d.message)),
        `round ${i}: the broken import is reported on the first call: ${JSON.stringify(bad)}`,
      );
      write(depPath(), dep);
      t = Date.now();
      const good = await errors("src/main.ts");
      took.push(Date.now() - t);
      assert.deepEqual(brief(good), [], `round ${i}: the revert is seen on the first call`);
    }
    took.sort((a, b) => a - b);
    process.stdout.write(
      `# first-call latency after an outside write: median ${took[took.length >> 1]} ms, max ${took.at(-1)} ms\n`,
    );
  });

  it("an atomic write (temp file renamed over the dependency) is seen on the first call", async () => {
    writeAtomically(depPath(), broken());
    assert.notDeepEqual(await errors("src/main.ts"), []);
    writeAtomically(depPath(), dep);
    assert.deepEqual(await errors("src/main.ts"), []);
  });

  it("a file created and then deleted by another process is seen on the first call", async () => {
    const user = 'import { made } from "./made";\n\nexport const twice: number = made * 2;\n';
    write(`${fx.dir}/src/uses-made.ts`, user);
    const missing = await errors("src/uses-made.ts");
    assert.deepEqual(brief(missing), [[1, "2307"]], JSON.stringify(missing));

    write(`${fx.dir}/src/made.ts`, "export const made = 21;\n");
    assert.deepEqual(await errors("src/uses-made.ts"), [], "the created module resolves on the first call");

    remove(`${fx.dir}/src/made.ts`);
    assert.deepEqual(brief(await errors("src/uses-made.ts")), [[1, "2307"]], "its deletion is seen too");
  });

  it("a module created in a new directory by another process is seen on the first call", async () => {
    const user = 'import { deep } from "./nested/inner/deep";\n\nexport const d: string = deep;\n';
    write(`${fx.dir}/src/uses-deep.ts`, user);
    assert.deepEqual(brief(await errors("src/uses-deep.ts")), [[1, "2307"]]);
    inAnotherProcess(
      "fs.mkdirSync(process.argv[1], { recursive: true }); fs.writeFileSync(process.argv[1] + '/deep.ts', 'export const deep = 1;\\n')",
      `${fx.dir}/src/nested/inner`,
    );
    const wrongType = await errors("src/uses-deep.ts");
    assert.deepEqual(brief(wrongType), [[3, "2322"]], JSON.stringify(wrongType));
  });

  it("a package installed into node_modules by another process resolves on the first call", async () => {
    const user = 'import { shine } from "fresh-pkg";\n\nexport const s: number = shine;\n';
    write(`${fx.dir}/src/uses-pkg.ts`, user);
    assert.deepEqual(brief(await errors("src/uses-pkg.ts")), [[1, "2307"]]);
    inAnotherProcess(
      "const d = process.argv[1] + '/node_modules/fresh-pkg'; fs.mkdirSync(d, { recursive: true }); fs.writeFileSync(d + '/package.json', JSON.stringify({ name: 'fresh-pkg', types: 'index.d.ts' })); fs.writeFileSync(d + '/index.d.ts', 'export declare const shine: string;\\n')",
      fx.dir,
    );
    const wrongType = await errors("src/uses-pkg.ts");
    assert.deepEqual(brief(wrongType), [[3, "2322"]], JSON.stringify(wrongType));
  });
});
