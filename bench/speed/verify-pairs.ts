// What `verify: true` adds to an edit (issue 20): the same edit with and without it, asked in pairs
// on the warm scalpel of the speed bench, alternating which goes first per round (the machine is
// shared; only side-by-side figures compare). Two edits, one per way of checking on TypeScript:
// a body replacement of a helper that one other module calls (the new text is checked unsaved, as
// overlays), and a move of a module with one importer into a folder and back (a file move is
// written, checked, and would be put back on a refusal). Every call changes the text, so none is
// a no-op, and each must land: a refused or failed one becomes a note, not a figure.
import type { ScalpelHandle } from "../../test/helpers/mcp.js";
import { callOk } from "../../test/helpers/mcp.js";
import { median, spread, table, timed } from "./measure.js";

export interface VerifyPair {
  label: string;
  without: number[];
  with: number[];
}

interface Edit {
  label: string;
  /** The k-th call of the edit (k counts both kinds of call), with or without verify. */
  call: (k: number, verify: boolean) => Promise<unknown>;
}

function edits(h: ScalpelHandle, n: number): Edit[] {
  const id = (i: number) => String(i).padStart(3, "0");
  const mid = Math.floor(n / 2);
  const helper = `helper${id(mid)}`;
  const moved = Math.floor((n * 7) / 10);
  return [
    {
      label: `replace_symbol_body ${helper} (1 caller; checked unsaved)`,
      call: (k, verify) =>
        callOk(h, "replace_symbol_body", {
          name_path: helper,
          relative_path: `src/mod${id(mid)}.ts`,
          body: `export function ${helper}(v: number, core?: Core): number {\n  return v <= ${k % 2} ? 0 : (core ?? makeCore()).compute(v) + helper${id(mid - 1)}(v - 1);\n}`,
          verify,
        }),
    },
    {
      label: `move_file mod${id(moved)}.ts ↔ moved/ (1 importer; written, checked)`,
      call: (k, verify) =>
        callOk(h, "move_file", {
          relative_path: k % 2 === 0 ? `src/mod${id(moved)}.ts` : `src/moved/mod${id(moved)}.ts`,
          to_path: k % 2 === 0 ? `src/moved/mod${id(moved)}.ts` : `src/mod${id(moved)}.ts`,
          verify,
        }),
    },
  ];
}

/** Runs `rounds` pairs of each edit; the first call of each is a warm-up, not counted. */
export async function measureVerify(
  h: ScalpelHandle,
  n: number,
  rounds: number,
  notes: string[],
): Promise<VerifyPair[]> {
  const out: VerifyPair[] = [];
  for (const edit of edits(h, n)) {
    const pair: VerifyPair = { label: edit.label, without: [], with: [] };
    let k = 0;
    const once = async (verify: boolean, keep: boolean) => {
      const call = k++;
      try {
        let answer: unknown;
        const ms = await timed(async () => {
          answer = await edit.call(call, verify);
        });
        const a = answer as { applied?: boolean; verify?: { reason?: string } };
        if (a.applied !== true) notes.push(`${edit.label}: not applied (${a.verify?.reason ?? "?"})`);
        else if (keep) (verify ? pair.with : pair.without).push(ms);
      } catch (e) {
        notes.push(`${edit.label} failed: ${(e instanceof Error ? e.message : String(e)).slice(0, 200)}`);
      }
    };
    await once(false, false);
    await once(true, false);
    for (let r = 0; r < rounds; r++) {
      const first = r % 2 === 0;
      await once(!first, true);
      await once(first, true);
    }
    out.push(pair);
  }
  return out;
}

export function verifyReport(rows: Array<{ backend: string; files: number; pairs: VerifyPair[] }>): string {
  const lines = rows.flatMap((r) =>
    r.pairs.map((p) => [
      r.backend,
      String(r.files),
      p.label,
      spread(p.without),
      spread(p.with),
      signedMs(median(p.with) - median(p.without)),
    ]),
  );
  return [
    "verify (median (min–max) of the paired rounds; added: the medians' difference):",
    table(["backend", "files", "edit", "without verify", "with verify", "added"], lines),
  ].join("\n");
}

/** "+5 ms", "-21 ms": the difference within the rounds' noise can be negative. */
const signedMs = (d: number) => `${d >= 0 ? "+" : ""}${d.toFixed(0)} ms`;
