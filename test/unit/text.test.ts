import * as assert from "node:assert/strict";
import { chmod, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { AppError } from "../../src/core/errors.js";
import {
  allLines,
  applyTextEdits,
  assertEditable,
  decodeText,
  detectEol,
  encodable,
  encodeText,
  isBinary,
  lineStarts,
  matchEol,
  maxTextFileBytes,
  offsetAt,
  positionAt,
  readTextFile,
  splitLines,
  writeTextFileAtomic,
} from "../../src/text/positions.js";

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

describe("files", () => {
  test("BOM and CRLF are reported and kept on write", async () => {
    const file = join(dir, "bom.txt");
    await writeFile(file, "\uFEFFa\r\nb\r\n");
    const t = await readTextFile(file);
    assert.deepEqual(
      { text: t.text, bom: t.bom, eol: t.eol, encoding: t.encoding, lossy: t.lossy },
      { text: "a\r\nb\r\n", bom: true, eol: "\r\n", encoding: "utf8", lossy: false },
    );
    assert.deepEqual(t.bytes, await readFile(file), "the exact bytes stay available");
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

describe("the one reader", () => {
  const cases: Array<{
    name: string;
    bytes: Buffer;
    text: string;
    encoding: string;
    bom: boolean;
    eol: string;
  }> = [
    { name: "utf8", bytes: Buffer.from("a\nb\n"), text: "a\nb\n", encoding: "utf8", bom: false, eol: "\n" },
    {
      name: "utf8 BOM, lone CR",
      bytes: Buffer.from("\uFEFFa\rb\r", "utf8"),
      text: "a\rb\r",
      encoding: "utf8",
      bom: true,
      eol: "\r",
    },
    {
      name: "utf16le BOM, CRLF, astral",
      bytes: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("x😀\r\ny", "utf16le")]),
      text: "x😀\r\ny",
      encoding: "utf16le",
      bom: true,
      eol: "\r\n",
    },
    {
      name: "utf16be BOM",
      bytes: Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from("é\n😀", "utf16le").swap16()]),
      text: "é\n😀",
      encoding: "utf16be",
      bom: true,
      eol: "\n",
    },
  ];
  for (const c of cases) {
    test(`decodes ${c.name} and encodes it back to the same bytes`, async () => {
      const file = join(dir, `enc-${c.name.replace(/\W+/g, "-")}.txt`);
      await writeFile(file, c.bytes);
      const t = await readTextFile(file, "f.txt");
      assert.deepEqual(
        { text: t.text, encoding: t.encoding, bom: t.bom, eol: t.eol, lossy: t.lossy },
        { text: c.text, encoding: c.encoding, bom: c.bom, eol: c.eol, lossy: false },
      );
      assert.deepEqual(encodeText(t.text, t), c.bytes);
      assert.deepEqual(decodeText(c.bytes).text, c.text);
    });
  }

  test("a UTF-16 file's NUL bytes do not make it binary; without a BOM they do", () => {
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("abc", "utf16le")]);
    assert.equal(isBinary(le), false);
    assert.equal(isBinary(le.subarray(2)), true);
  });

  test("invalid UTF-8 reads with replacement characters and is marked lossy; edits refuse it", async () => {
    const bytes = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]); // "café" in Latin-1
    const t = decodeText(bytes);
    assert.equal(t.lossy, true);
    assert.equal(t.text, "caf\uFFFD\n");
    assert.throws(
      () => assertEditable(t, "src/latin1.txt"),
      (e) =>
        e instanceof AppError && e.code === "unsupported_encoding" && e.message.includes("src/latin1.txt"),
    );
    assert.doesNotThrow(() => assertEditable(decodeText(Buffer.from("café\n")), "ok.txt"));
  });

  test("files over the size limit are too_large; directories are refused", async () => {
    const big = join(dir, "big.txt");
    await writeFile(big, Buffer.alloc(maxTextFileBytes + 1, 0x61));
    await assert.rejects(
      readTextFile(big, "big.txt"),
      (e) => e instanceof AppError && e.code === "too_large",
    );
    await rm(big);
    await assert.rejects(
      readTextFile(dir, "d"),
      (e) => e instanceof AppError && e.code === "invalid_argument",
    );
  });

  test("a lone surrogate cannot be stored in UTF-8 but can in UTF-16", () => {
    const half = "a\uD83D";
    assert.equal(encodable(half, { encoding: "utf8", bom: false }), false);
    assert.equal(encodable("a😀", { encoding: "utf8", bom: false }), true);
    assert.equal(encodable(half, { encoding: "utf16le", bom: true }), true);
  });
});

describe("the one line model", () => {
  const samples = ["a\nb", "a\r\nb\r\n", "a\rb\r", "a\r\rb\n\r\nc", "", "\r", "x\n\ny"];
  test("lineStarts, splitLines and allLines agree on every line ending", () => {
    for (const s of samples) {
      const starts = lineStarts(s);
      assert.equal(allLines(s).length, starts.length, JSON.stringify(s));
      for (let i = 0; i < starts.length; i++) {
        const line = allLines(s)[i]!;
        assert.equal(s.slice(starts[i], starts[i]! + line.length), line, JSON.stringify(s));
      }
      const shown = splitLines(s);
      assert.ok(shown.length === starts.length || shown.length === starts.length - 1, JSON.stringify(s));
    }
  });

  test("detectEol knows the lone CR; matchEol writes new lines in the file's style", () => {
    assert.equal(detectEol("a\rb\r"), "\r");
    assert.equal(detectEol("a\r\nb"), "\r\n");
    assert.equal(detectEol("a\nb\r\n"), "\n");
    assert.equal(detectEol("one line"), "\n");
    assert.equal(matchEol("x\ny\r\n", "\r"), "x\ry\r");
    assert.equal(matchEol("x\ny\r\n", "\r\n"), "x\r\ny\r\n");
    assert.equal(matchEol("x\ny", "\n"), "x\ny");
  });
});
