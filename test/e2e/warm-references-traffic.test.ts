// @backends tsserver native
/**
 * A warm find_referencing_symbols makes the server do no more than the raw request (issue 21):
 * on ts-projects plus 30 loose files outside the tsconfig that name the symbol without using it
 * (the reference scope opens each of them before asking, so the answer does not depend on what
 * earlier calls opened), the second identical call opens, re-sends and closes no file and asks
 * nothing but `textDocument/references`. Counted with SCALPEL_LSP_TRACE, the trace a user can
 * ask for too. (Measured with the kept sites switched off: the second call asked the project of
 * each of the 33 files outside the tsconfig that name it and sent the request twice, one batch of
 * 20 files at a time, on both backends.)
 */
import { strict as assert } from "node:assert";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout } from "node:timers/promises";
import { copyFixture, type TempProject } from "../helpers/fixtures.js";
import { callOk, type ReferenceFile, type ScalpelHandle, startScalpel, stopServing } from "../helpers/mcp.js";

interface RefsResult {
  files: ReferenceFile[];
  total: number;
  complete: boolean;
  incomplete_reason?: string;
}

interface TraceLine {
  kind: "request" | "notification";
  method: string;
  uri?: string;
  command?: string;
}

const looseFiles = 30;
const query = { name_path: "HttpError", relative_path: "src/errors.ts" };

describe("a warm references call asks the server only the request (e2e)", () => {
  let fx: TempProject;
  let h: ScalpelHandle;
  let tracePath: string;
  let first: RefsResult;
  let firstTrace: TraceLine[];
  const refs = () => callOk<RefsResult>(h, "find_referencing_symbols", query);
  const traced = async () =>
    (await readFile(tracePath, "utf8"))
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as TraceLine);

  before(async () => {
    fx = await copyFixture("ts-projects");
    await mkdir(join(fx.dir, "notes"));
    for (let i = 0; i < looseFiles; i++) {
      // Names the symbol (the scan finds it), references nothing.
      const text = `// Notes on HttpError handling, part ${i}.\nexport const note${i} = "HttpError";\n`;
      await writeFile(join(fx.dir, "notes", `note-${String(i).padStart(2, "0")}.ts`), text);
    }
    tracePath = join(fx.base, "lsp-trace.jsonl");
    h = await startScalpel({ project: fx.dir, env: { SCALPEL_LSP_TRACE: tracePath } });
    first = await refs();
    firstTrace = await traced();
    // The symbol index build asks the same server for every file's symbols in the background:
    // its traffic is not the call's.
    const until = Date.now() + 60_000;
    while (!/symbol index (ready|build stopped)/.test(h.stderr) && Date.now() < until) await setTimeout(100);
  });

  after(async () => {
    await stopServing(h, fx);
  });

  it("the first call opens the loose files that name the symbol (the trace sees it)", () => {
    assert.equal(first.complete, true, first.incomplete_reason);
    const opened = firstTrace.filter(
      (l) => l.method === "textDocument/didOpen" && l.uri?.includes("/notes/"),
    );
    assert.equal(opened.length, looseFiles);
  });

  it("a second identical call opens or re-sends no file and repeats only the request", async () => {
    const before = (await traced()).length;
    const again = await refs();
    const during = (await traced()).slice(before);
    assert.deepEqual(again, first);
    const documents = during.filter((l) => l.method.startsWith("textDocument/did"));
    assert.deepEqual(documents, [], "no document opened, changed, saved or closed");
    const asked = during.filter((l) => l.kind === "request").map((l) => l.command ?? l.method);
    assert.ok(asked.length <= 1, `asked: ${asked.join(", ")}`);
    for (const m of asked) assert.equal(m, "textDocument/references");
  });
});
