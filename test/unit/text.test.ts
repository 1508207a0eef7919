import * as assert from "node:assert/strict";
import { chmod, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  applyTextEdits,
  indentationOf,
  lineStarts,
  offsetAt,
  positionAt,
  readTextFile,
  reindent,
  splitLines,
  writeTextFileAtomic,
} from "../../src/edits/text.js";
import { AppError } from "../../src/errors.js";

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), "scalpel-text-"));
});
after(() => rm(dir, { recursive: true, force: true }));

/** LSP position of the first occurrence of `needle`. */
function pos(text: string, needle: string) {
  const at = text.indexOf(needle);
  assert.ok(at >= 0, `anchor ${needle} not found`);
  return positionAt(text, at);
}

describe("positions", () => {
  test("UTF-16: an emoji is two code units, é is one", () => {
    const text = "const s = '😀é';\nlet x = 1;\n";
    const p = pos(text, "é");
    assert.deepEqual(p, { line: 0, character: 13 });
    assert.equal(offsetAt(text, p), text.indexOf("é"));
    assert.deepEqual(pos(text, "x"), { line: 1, character: 4 });
  });

  test("CRLF: a position's character never lands on the \\r", () => {
    const text = "ab\r\ncd\r\n";
    assert.deepEqual(lineStarts(text), [0, 4, 8]);
    assert.equal(offsetAt(text, { line: 0, character: 99 }), 2);
    assert.equal(offsetAt(text, { line: 1, character: 1 }), 5);
    assert.deepEqual(positionAt(text, 5), { line: 1, character: 1 });
    assert.equal(offsetAt(text, { line: 9, character: 0 }), text.length);
  });

  test("lone \\r ends a line, as in LSP", () => {
    assert.deepEqual(lineStarts("a\rb\nc"), [0, 2, 4]);
  });

  test("splitLines drops the empty line after a final line ending", () => {
    assert.deepEqual(splitLines("a\r\nb\r\n"), ["a", "b"]);
    assert.deepEqual(splitLines("a\n\n"), ["a", ""]);
    assert.deepEqual(splitLines(""), []);
    assert.deepEqual(splitLines("x"), ["x"]);
  });
});

describe("applyTextEdits", () => {
  const text = "one\ntwo\nthree\n";
  test("applies edits given in any order", () => {
    const out = applyTextEdits(text, [
      { range: { start: pos(text, "three"), end: { line: 2, character: 5 } }, newText: "3" },
      { range: { start: pos(text, "one"), end: { line: 0, character: 3 } }, newText: "1" },
    ]);
    assert.equal(out, "1\ntwo\n3\n");
  });

  test("inserts at the same point keep their order", () => {
    const at = pos(text, "two");
    const out = applyTextEdits(text, [
      { range: { start: at, end: at }, newText: "a" },
      { range: { start: at, end: at }, newText: "b" },
    ]);
    assert.equal(out, "one\nabtwo\nthree\n");
  });

  test("overlapping edits are an edit_conflict", () => {
    assert.throws(
      () =>
        applyTextEdits(text, [
          { range: { start: { line: 0, character: 0 }, end: { line: 1, character: 2 } }, newText: "" },
          { range: { start: { line: 1, character: 0 }, end: { line: 1, character: 3 } }, newText: "" },
        ]),
      (e) => e instanceof AppError && e.code === "edit_conflict",
    );
  });

  test("ranges past the end are an edit_conflict, the end-of-document position is fine", () => {
    assert.throws(
      () =>
        applyTextEdits(text, [
          { range: { start: { line: 7, character: 0 }, end: { line: 7, character: 0 } }, newText: "x" },
        ]),
      (e) => e instanceof AppError && e.code === "edit_conflict",
    );
    const eod = { line: 3, character: 0 };
    assert.equal(
      applyTextEdits(text, [{ range: { start: eod, end: eod }, newText: "four\n" }]),
      `${text}four\n`,
    );
  });

  test("emoji before the edit", () => {
    const t = "x = '😀'; y = 1;";
    const start = pos(t, "1");
    assert.equal(
      applyTextEdits(t, [
        { range: { start, end: { line: 0, character: start.character + 1 } }, newText: "2" },
      ]),
      "x = '😀'; y = 2;",
    );
  });
});

describe("reindent", () => {
  test("an unindented body lands at the target indentation", () => {
    assert.equal(reindent("foo() {\n  return 1;\n}", "    ", "\n"), "    foo() {\n      return 1;\n    }");
  });

  test("common indentation is removed first; blank lines stay empty", () => {
    assert.equal(reindent("\t\tif (x) {\n\t\t\ty();\n\n\t\t}", "\t", "\n"), "\tif (x) {\n\t\ty();\n\n\t}");
  });

  test("a body copied from the declaration's column (first line unindented) is recognised", () => {
    assert.equal(reindent("foo() {\n    return 1;\n  }", "  ", "\n"), "  foo() {\n    return 1;\n  }");
  });

  test("python-style body without a closing line is a plain block", () => {
    assert.equal(reindent("def f():\n    return 1", "    ", "\n"), "    def f():\n        return 1");
  });

  test("line endings become the file's", () => {
    assert.equal(reindent("a\nb\r\nc", "", "\r\n"), "a\r\nb\r\nc");
  });

  test("indentationOf", () => {
    assert.equal(indentationOf("  \tx "), "  \t");
    assert.equal(indentationOf("x"), "");
  });
});

describe("files", () => {
  test("BOM and CRLF are reported and kept on write", async () => {
    const file = join(dir, "bom.txt");
    await writeFile(file, "\uFEFFa\r\nb\r\n");
    const t = await readTextFile(file);
    assert.deepEqual(t, { text: "a\r\nb\r\n", bom: true, eol: "\r\n" });
    await writeTextFileAtomic(file, "a\r\nc\r\n", { bom: t.bom });
    assert.equal(await readFile(file, "utf8"), "\uFEFFa\r\nc\r\n");
    await writeTextFileAtomic(file, "x\ny\n", { bom: false, eol: "\r\n" });
    assert.equal(await readFile(file, "utf8"), "x\r\ny\r\n");
  });

  test("atomic write keeps the mode, leaves no temp file, writes through a symlink", async () => {
    const file = join(dir, "run.sh");
    await writeFile(file, "#!/bin/sh\n");
    await chmod(file, 0o755);
    await symlink(file, join(dir, "alias.sh"));
    await writeTextFileAtomic(join(dir, "alias.sh"), "#!/bin/sh\necho hi\n", { bom: false });
    assert.equal(await readFile(file, "utf8"), "#!/bin/sh\necho hi\n");
    assert.equal((await stat(file)).mode & 0o777, 0o755);
    assert.ok((await stat(join(dir, "alias.sh"))).isFile());
    assert.deepEqual(
      (await readdir(dir)).filter((n) => n.includes("scalpel-tmp")),
      [],
    );
  });

  test("binary and missing files are refused with the display name only", async () => {
    const bin = join(dir, "img.png");
    await writeFile(bin, Buffer.from([0x89, 0x50, 0x00, 0x01]));
    await assert.rejects(readTextFile(bin, "img.png"), (e) => {
      assert.ok(e instanceof AppError && e.code === "invalid_argument");
      assert.ok(!e.message.includes(dir));
      return true;
    });
    await assert.rejects(
      readTextFile(join(dir, "none.txt"), "none.txt"),
      (e) => e instanceof AppError && e.code === "file_not_found",
    );
  });
});
