/**
 * Property: any sequence of edits applied through the writer and recorded in the journal, undone
 * in reverse order, restores every file byte for byte, in every encoding and line-ending style,
 * also when the undo runs in a "restarted" journal that loads the project's journal folder from disk.
 *
 * Seeded: SCALPEL_PROPERTY_SEED=<n> replays a failing run (the seed is in every failure message).
 */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { isAppError } from "../../src/core/errors.js";
import { applyPlan } from "../../src/edits/apply.js";
import { EditJournal, journalFiles, undoPlan } from "../../src/edits/journal.js";
import type { EditPlan } from "../../src/edits/plan.js";
import { Sandbox } from "../../src/security/sandbox.js";
import {
  decodeText,
  encodeText,
  positionAt,
  type TextEdit,
  type TextFormat,
} from "../../src/text/positions.js";
import { mulberry32 } from "../helpers/prng.js";
import { byTier } from "../helpers/tier.js";

// Each sequence is a fresh random case (a new seed every run): the quick tier still covers every
// style many times over; the full tier runs the long sweep.
const sequences = byTier(40, 220);
const seed = Number(process.env.SCALPEL_PROPERTY_SEED ?? Math.floor(Math.random() * 2 ** 31));

interface Style {
  name: string;
  format: TextFormat;
  eol: string;
}

const styles: Style[] = [
  { name: "LF", format: { encoding: "utf8", bom: false }, eol: "\n" },
  { name: "CRLF", format: { encoding: "utf8", bom: false }, eol: "\r\n" },
  { name: "lone CR", format: { encoding: "utf8", bom: false }, eol: "\r" },
  { name: "UTF-8 BOM CRLF", format: { encoding: "utf8", bom: true }, eol: "\r\n" },
  { name: "UTF-16LE BOM", format: { encoding: "utf16le", bom: true }, eol: "\n" },
  { name: "UTF-16LE BOM lone CR", format: { encoding: "utf16le", bom: true }, eol: "\r" },
  { name: "UTF-16BE BOM CRLF", format: { encoding: "utf16be", bom: true }, eol: "\r\n" },
];

const pieces = ["a", "b", "xyz", " ", "\t", "é", "中文", "😀", "𝄞", "👩‍👩‍👧", "{", "}", ";"];
const breaks = ["\n", "\r\n", "\r"];

let root: string;
before(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "scalpel-undo-prop-")));
});
after(() => rm(root, { recursive: true, force: true }));

test(`random edit sequences undo byte for byte (${sequences} sequences, seed ${seed})`, async () => {
  const rnd = mulberry32(seed);
  const int = (n: number) => Math.floor(rnd() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const words = (n: number, eol: string) => {
    let s = "";
    for (let i = 0; i < n; i++) s += rnd() < 0.15 ? (rnd() < 0.7 ? eol : pick(breaks)) : pick(pieces);
    return s;
  };
  /** Offsets between code points (UTF-16 files may also get a split pair: they can store it). */
  const boundaries = (text: string, splitPairs: boolean) => {
    const out = [0];
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      const pairStart = c >= 0xd800 && c <= 0xdbff && i + 1 < text.length;
      if (pairStart && !splitPairs) {
        i++;
      }
      out.push(i + 1);
    }
    return out;
  };

  let checkedEdits = 0;
  for (let n = 0; n < sequences; n++) {
    const where = `seed ${seed}, sequence ${n}`;
    const dir = join(root, `p${n}`);
    await mkdir(dir);
    const sandbox = new Sandbox(dir);
    const journal = new EditJournal(sandbox);
    const files = new Map<string, Style>();
    const fileCount = 1 + int(3);
    for (let f = 0; f < fileCount; f++) {
      const style = pick(styles);
      const rel = `f${f}.txt`;
      files.set(rel, style);
      await writeFile(join(dir, rel), encodeText(words(int(40), style.eol), style.format));
    }
    const snapshot = async () => {
      const out = new Map<string, Buffer | null>();
      for (const rel of files.keys()) out.set(rel, await readFile(join(dir, rel)).catch(() => null));
      return out;
    };
    const states = [await snapshot()];
    const steps = 1 + int(6);
    const ids: string[] = [];
    for (let s = 0; s < steps; s++) {
      const plan: EditPlan = [];
      for (const [rel, style] of files) {
        if (rnd() < 0.4 && plan.length > 0) continue;
        const path = sandbox.resolve(rel);
        const bytes = await readFile(path.abs).catch(() => null);
        if (bytes === null) {
          if (rnd() < 0.5)
            plan.push({ kind: "create", path, content: words(int(20), style.eol), overwrite: false });
          continue;
        }
        // A file deleted and created again is UTF-8 now, whatever its first style.
        const { text, encoding } = decodeText(bytes);
        if (rnd() < 0.05) {
          plan.push({ kind: "delete", path, expectedText: text });
          continue;
        }
        const cuts = boundaries(text, encoding !== "utf8");
        const offsets = Array.from({ length: 2 * (1 + int(3)) }, () => pick(cuts)).sort((x, y) => x - y);
        const edits: TextEdit[] = [];
        for (let k = 0; k < offsets.length; k += 2) {
          const start = offsets[k]!;
          const end = rnd() < 0.3 ? start : offsets[k + 1]!;
          if (edits.length > 0 && k > 0 && start < offsets[k - 1]!) continue;
          edits.push({
            range: { start: positionAt(text, start), end: positionAt(text, end) },
            newText: rnd() < 0.2 ? "" : words(1 + int(8), style.eol),
          });
        }
        plan.push({ kind: "edit", path, edits, expectedText: text });
      }
      if (plan.length === 0) continue;
      let r: Awaited<ReturnType<typeof applyPlan>>;
      try {
        r = await applyPlan(plan, { dryRun: false });
      } catch (e) {
        // Ranges that collapse onto one point after clamping may overlap: a refused plan writes nothing.
        if (isAppError(e) && e.code === "edit_conflict") {
          assert.deepEqual(await snapshot(), states.at(-1), `${where}: a refused plan wrote something`);
          continue;
        }
        throw new Error(`${where}: ${String(e)}`);
      }
      const id = `e${n.toString(16)}${s.toString(16)}0`;
      await journal.record({ id, tool: "property", files: journalFiles(sandbox, r.before, r.after) });
      ids.push(id);
      states.push(await snapshot());
      checkedEdits++;
    }

    // Half of the sequences undo in a journal freshly loaded from disk: the server "restarted".
    const restarted = n % 2 === 0;
    const undoer = restarted ? new EditJournal(new Sandbox(dir)) : journal;
    if (restarted) assert.deepEqual(await undoer.ids(), ids, `${where}: the journal reloads every entry`);
    for (let k = ids.length - 1; k >= 0; k--) {
      const entry = await undoer.pick(undefined);
      assert.equal(entry.id, ids[k], `${where}: undo order`);
      await applyPlan(undoPlan(entry), { dryRun: false });
      await undoer.markUndone(entry.id);
      const now = await snapshot();
      for (const [rel, bytes] of states[k]!) {
        assert.deepEqual(
          now.get(rel),
          bytes,
          `${where}: ${rel} (${files.get(rel)!.name}) after undoing step ${k}`,
        );
      }
    }
  }
  assert.ok(checkedEdits > sequences, `seed ${seed}: too few edits were exercised (${checkedEdits})`);
});
