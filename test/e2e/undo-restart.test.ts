// @backends tsserver native:full
/**
 * Acceptance: edits made through the tools on CRLF, lone-CR, UTF-8-BOM and UTF-16 files are undone,
 * latest first, by a NEW server process on the same directory (the journal lives per user in
 * `$SCALPEL_HOME/state/`), and every file comes back byte for byte.
 */
import { strict as assert } from "node:assert";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { copyFixture, readBytes, type TempProject } from "../helpers/fixtures.js";
import { callOk, type EditResult, type ScalpelHandle, startScalpel } from "../helpers/mcp.js";

const loneCr = "export function loneCr(a: number): number {\r  return a + 1;\r}\r\rexport const tail = 1;\r";
const bomCrlf = "\uFEFFexport const greeting = 'hi';\r\nexport const other = 2;\r\n";
const utf16 = Buffer.concat([
  Buffer.from([0xff, 0xfe]),
  Buffer.from("title: 😀 notes\r\nline two\r\n", "utf16le"),
]);

describe("undo after a restart (e2e)", () => {
  let fx: TempProject;
  let h: ScalpelHandle | undefined;

  before(async () => {
    fx = await copyFixture("ts-basic");
    await writeFile(join(fx.dir, "src/lonecr.ts"), loneCr);
    await writeFile(join(fx.dir, "src/bomcrlf.ts"), bomCrlf);
    await writeFile(join(fx.dir, "notes-u16.txt"), utf16);
  });

  after(async () => {
    await h?.close();
    await fx.cleanup();
  });

  it("undo_edit in a new server restores every file byte for byte, latest first", async () => {
    const files = ["src/crlf.ts", "src/lonecr.ts", "src/bomcrlf.ts", "notes-u16.txt"];
    const original = new Map<string, Buffer>();
    for (const f of files) original.set(f, await readBytes(fx.dir, f));

    const first = await startScalpel({ project: fx.dir });
    h = first;
    const edits: Array<[string, Record<string, unknown>]> = [
      [
        "replace_symbol_body",
        {
          relative_path: "src/crlf.ts",
          name_path: "crlfGreeting",
          body: 'export function crlfGreeting(name: string): string {\n  return "hi " + name;\n}',
        },
      ],
      [
        "insert_after_symbol",
        {
          relative_path: "src/lonecr.ts",
          name_path: "loneCr",
          body: "\nexport function loneCr2(a: number): number {\n  return loneCr(a) * 2;\n}",
        },
      ],
      [
        "replace_content",
        { relative_path: "src/bomcrlf.ts", needle: "'hi';\nexport", replacement: "'hey';\nexport" },
      ],
      [
        "replace_content",
        { relative_path: "notes-u16.txt", needle: "line two", replacement: "line 2 ✓\nline 3" },
      ],
      ["create_text_file", { relative_path: "docs/new.md", content: "# new\n" }],
      [
        "replace_content",
        { relative_path: "src/crlf.ts", needle: '"hi " + name', replacement: '"hello again " + name' },
      ],
    ];
    for (const [tool, args] of edits) {
      const r = await callOk<EditResult>(first, tool, args);
      assert.equal(r.applied, true, tool);
    }
    for (const f of files)
      assert.notDeepEqual(await readBytes(fx.dir, f), original.get(f), `${f} was edited`);
    // The edits kept each file's style.
    assert.ok(!(await readBytes(fx.dir, "src/lonecr.ts")).includes(0x0a), "lone CR stays lone CR");
    const u16 = await readBytes(fx.dir, "notes-u16.txt");
    assert.equal(u16.subarray(2).toString("utf16le"), "title: 😀 notes\r\nline 2 ✓\r\nline 3\r\n");
    await first.close();

    const second = await startScalpel({ project: fx.dir });
    h = second;
    for (let k = 0; k < edits.length; k++) {
      const r = await callOk<EditResult>(second, "undo_edit", {});
      assert.equal(r.applied, true);
    }
    for (const f of files)
      assert.deepEqual(await readBytes(fx.dir, f), original.get(f), `${f} restored byte for byte`);
    await assert.rejects(readBytes(fx.dir, "docs/new.md"), "the created file is gone again");
    const none = await second.call("undo_edit", {});
    assert.equal(none.isError, true);
    assert.match(none.text, /no edit to undo/);
  });
});
