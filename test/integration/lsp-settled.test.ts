// Settled means settled (issue #8): a diagnostics answer describes the disk as it is when the
// answer is given. When another process changes a dependency while the server checks (here: during
// every check, deterministically, from inside the adapter's checkFile), the answer is re-done until
// the bound and then says it is incomplete, naming the file; once the writes stop, the next answer
// is complete and reflects the last write. Real tsserver through LspSession, with the project watcher.
import * as assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { typescriptAdapter } from "../../language-servers/typescript.js";
import { log } from "../../src/core/log.js";
import { LspSession } from "../../src/lsp/session.js";
import { writeFromAnotherProcess } from "../helpers/fixtures.js";

let root: string;
let session: LspSession;
let writesDuringCheck = false;
let checks = 0;
const file = (name: string) => join(root, "src", name);

before(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "scalpel-settled-")));
  mkdirSync(join(root, "src"));
  writeFileSync(
    join(root, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { strict: true, noEmit: true, types: [] }, include: ["src"] }),
  );
  writeFileSync(file("dep.ts"), "export const n = 1;\n");
  writeFileSync(file("main.ts"), 'import { n } from "./dep";\n\nexport const m: number = n;\n');
  const spec = typescriptAdapter.spec(root);
  if ("missing" in spec) throw new Error(spec.missing);
  const check = spec.checkFile;
  assert.ok(check, "the TypeScript adapter checks files on request");
  session = new LspSession(
    {
      ...spec,
      checkFile: async (run, uri, opts) => {
        checks++;
        if (writesDuringCheck) writeFromAnotherProcess(file("dep.ts"), `export const n = ${checks};\n`);
        return check(run, uri, opts);
      },
    },
    root,
    log,
    { watchIgnoredDirs: ["node_modules"] },
  );
  session.start();
});

after(async () => {
  await session.shutdown();
  rmSync(root, { recursive: true, force: true });
});

test("a dependency changed during every check: incomplete at the bound, naming it; afterwards exact", async () => {
  assert.deepEqual((await session.diagnostics(file("main.ts"))).diagnostics, []);
  writesDuringCheck = true;
  const before = checks;
  const busy = await session.diagnostics(file("main.ts"), { maxWaitMs: 1_500 });
  assert.equal(busy.complete, false, JSON.stringify(busy));
  assert.match(
    busy.incompleteReason ?? "",
    /kept changing on disk while the server checked \(src\/dep\.ts\)/,
  );
  assert.ok(checks - before > 1, "the check was re-done after each change");
  writesDuringCheck = false;
  writeFromAnotherProcess(file("dep.ts"), 'export const n = "final";\n');
  const done = await session.diagnostics(file("main.ts"));
  assert.equal(done.complete, true);
  assert.deepEqual(
    done.diagnostics.map((d) => [d.range.start.line, d.code]),
    [[2, 2322]],
  );
});
