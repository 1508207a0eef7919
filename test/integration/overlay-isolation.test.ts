// Overlays (src/lsp/session.ts withOverlays, used by verify and extract's new_name) are the
// holder's alone: its own checks see the unsaved text, including in files that depend on it, while
// every other caller's request waits and then describes the disk. Real tsserver through LspSession.
import * as assert from "node:assert/strict";
import { AsyncResource } from "node:async_hooks";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { typescriptAdapter } from "../../language-servers/typescript.js";
import { log } from "../../src/core/log.js";
import { LspSession } from "../../src/lsp/session.js";
import type { DiagnosticsResult } from "../../src/lsp/types.js";

let root: string;
let session: LspSession;
const file = (name: string) => join(root, "src", name);
const codes = (r: DiagnosticsResult) => r.diagnostics.map((d) => String(d.code));

before(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), "scalpel-overlay-")));
  mkdirSync(join(root, "src"));
  writeFileSync(
    join(root, "tsconfig.json"),
    JSON.stringify({ compilerOptions: { strict: true, noEmit: true, types: [] }, include: ["src"] }),
  );
  writeFileSync(file("lib.ts"), "export function price(): number {\n  return 1;\n}\n");
  writeFileSync(
    file("caller.ts"),
    'import { price } from "./lib";\n\nexport const total: number = price() + 1;\n',
  );
  const spec = typescriptAdapter.spec(root);
  if ("missing" in spec) throw new Error(spec.missing);
  session = new LspSession(spec, root, log, { watchIgnoredDirs: ["node_modules"] });
  session.start();
});

after(async () => {
  await session.shutdown();
  rmSync(root, { recursive: true, force: true });
});

test("the holder's check of a dependent sees the overlay; another caller waits and sees the disk", async () => {
  assert.deepEqual(codes(await session.diagnostics(file("caller.ts"))), []);
  let outsiderDone = false;
  let outsider: Promise<DiagnosticsResult> | undefined;
  // Another call's work, made outside the holder's async context (as a concurrent tool call is).
  let outsiderSaw: boolean | undefined;
  const ask = AsyncResource.bind(() => {
    outsiderSaw = session.seesOverlays;
    return session.diagnostics(file("caller.ts")).finally(() => {
      outsiderDone = true;
    });
  });
  const { inside, doneInside } = await session.withOverlays(
    [{ abs: file("lib.ts"), text: 'export function price(): string {\n  return "x";\n}\n' }],
    async () => {
      // Asked first: it must not be answered with the overlay.
      outsider = ask();
      // What the holder's own code may ask of the session: answers here are not the disk's (the
      // reference sites kept between calls are neither used nor kept, src/references/sites.ts).
      assert.equal(session.seesOverlays, true, "the holder is told it sees overlays");
      const r = await session.diagnostics(file("caller.ts"));
      return { inside: r, doneInside: outsiderDone };
    },
  );
  assert.deepEqual(codes(inside), ["2322"], "the holder sees the dependent's error");
  assert.equal(doneInside, false, "the other caller waited for the overlay to be lifted");
  assert.deepEqual(codes(await outsider!), [], "and then saw the disk");
  assert.equal(outsiderSaw, false, "another caller is not told it sees overlays");
  assert.equal(session.seesOverlays, false);
  assert.deepEqual(codes(await session.diagnostics(file("caller.ts"))), []);
});
