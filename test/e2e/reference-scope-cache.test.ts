// @tsserver-only scalpel's own behaviour (protocol, limits, security), not the server's: one backend is enough
/**
 * The reference scope is kept between calls (src/references/scope-cache.ts) — and still
 * depends on the disk only: over the built CLI on ts-projects (a tsconfig over src/ only, test/
 * and scripts/ outside it), a file outside the tsconfig that starts mentioning the symbol is found
 * by the next call, whether another process wrote it or scalpel did. Each change is made right
 * before the call: the call must see it without waiting. (Measured: with the cache never
 * forgetting, both sites are missing — the server sees a file imported by none only once the
 * scope opens it.)
 */
import { strict as assert } from "node:assert";
import { spawnSync } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { TempProject } from "../helpers/fixtures.js";
import {
  callOk,
  filesOf,
  type ReferenceFile,
  type ScalpelHandle,
  serveFixture,
  stopServing,
} from "../helpers/mcp.js";

interface RefsResult {
  files: ReferenceFile[];
  complete: boolean;
  incomplete_reason?: string;
}

const query = { name_path: "HttpError", relative_path: "src/errors.ts", context_lines: 0 };

/** Writes a file from another process, as an editor or `git checkout` would. */
function writeElsewhere(abs: string, text: string): void {
  const r = spawnSync(process.execPath, [
    "-e",
    "require('fs').writeFileSync(process.argv[1], process.argv[2])",
    abs,
    text,
  ]);
  assert.equal(r.status, 0, String(r.stderr));
}

/** The file's entry: its project and the lines of its sites (imports and others). */
function entry(r: RefsResult, rel: string): { project: unknown; lines: number[] } | undefined {
  const f = filesOf(r).find((x) => x.relative_path === rel);
  if (!f) return undefined;
  const lines = [...f.imports, ...f.sites.map((s) => s.line)];
  return { project: f.project, lines: lines.sort((a, b) => a - b) };
}

describe("reference scope kept between calls, forgotten on change (e2e, typescript-language-server)", () => {
  let fx: TempProject;
  let h: ScalpelHandle;
  let first: RefsResult;
  const refs = () => callOk<RefsResult>(h, "find_referencing_symbols", query);

  before(async () => {
    ({ fx, h } = await serveFixture("ts-projects"));
    first = await refs();
  });

  after(async () => {
    await stopServing(h, fx);
  });

  it("answers the same warm call the same way", async () => {
    assert.equal(first.complete, true, first.incomplete_reason);
    assert.deepEqual(await refs(), first);
  });

  it("finds a file outside the tsconfig that another process made mention the symbol", async () => {
    // A new file, imported by none: only the scope opening it lets the server see its sites.
    const abs = join(fx.dir, "scripts/other.ts");
    writeElsewhere(abs, "export const other = 1;\n");
    assert.deepEqual(await refs(), first);
    writeElsewhere(abs, `import { HttpError } from "../src/errors";\n\nthrow new HttpError(599);\n`);
    const r = await refs();
    assert.equal(r.complete, true, r.incomplete_reason);
    assert.deepEqual(entry(r, "scripts/other.ts"), { project: null, lines: [1, 3] });
    // Everything found before is still there.
    for (const f of filesOf(first))
      assert.deepEqual(entry(r, f.relative_path), entry(first, f.relative_path));
  });

  it("quotes a site's line as the disk has it now, whoever changed it", async () => {
    const code = () =>
      refs().then((r) =>
        filesOf(r)
          .find((f) => f.relative_path === "src/client.ts")
          ?.sites.map((s) => s.code),
      );
    assert.deepEqual(await code(), [
      "if (status >= 400) throw new HttpError(status);",
      "export function isHttpError(e: unknown): e is HttpError {",
      "return e instanceof HttpError;",
    ]);
    const abs = join(fx.dir, "src/client.ts");
    const old = await readFile(abs, "utf8");
    writeElsewhere(abs, old.replace("new HttpError(status)", "new HttpError(status + 1)"));
    assert.deepEqual(await code(), [
      "if (status >= 400) throw new HttpError(status + 1);",
      "export function isHttpError(e: unknown): e is HttpError {",
      "return e instanceof HttpError;",
    ]);
    await callOk(h, "replace_content", {
      relative_path: "src/client.ts",
      needle: "status + 1",
      replacement: "status + 2",
    });
    assert.deepEqual(await code(), [
      "if (status >= 400) throw new HttpError(status + 2);",
      "export function isHttpError(e: unknown): e is HttpError {",
      "return e instanceof HttpError;",
    ]);
  });

  it("finds a file outside the tsconfig that scalpel wrote", async () => {
    await callOk(h, "create_text_file", {
      relative_path: "scripts/late.ts",
      content: 'import { HttpError } from "../src/errors";\n\nthrow new HttpError(418);\n',
    });
    const r = await refs();
    assert.equal(r.complete, true, r.incomplete_reason);
    assert.deepEqual(entry(r, "scripts/late.ts"), { project: null, lines: [1, 3] });
    await callOk(h, "replace_content", {
      relative_path: "scripts/late.ts",
      needle: "HttpError",
      replacement: "Error",
      mode: "literal",
      allow_multiple: true,
    });
    assert.equal(entry(await refs(), "scripts/late.ts"), undefined);
  });
});
