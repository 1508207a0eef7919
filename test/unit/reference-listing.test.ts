// find_referencing_symbols hands the wrapper only the sites that can matter to a page of
// max_answer_chars (`listable`): the fitted answer — its page, `shown`, `total`, `next`, hint and
// text — must be exactly what the wrapper makes of every site, for answers over and under the
// budget, with and without context lines, import sites, secret files, from any offset.
import assert from "node:assert/strict";
import { test } from "node:test";
import { groupReferences, listable } from "../../src/references/listing.js";
import type { Reference } from "../../src/references/sites.js";
import { findReferencingSymbolsTool } from "../../src/tools/find-referencing-symbols.js";
import type { ToolDef } from "../../src/tools/kit/define.js";
import { fitBudget, renderAnswer } from "../../src/tools/kit/run.js";
import { mulberry32 } from "../helpers/prng.js";

const def = findReferencingSymbolsTool as unknown as ToolDef;
const symbol = {
  name_path: "Core/compute",
  kind: "Method",
  relative_path: "src/core.ts",
  start_line: 4,
  end_line: 6,
};

/** Sites in path order, imports first in each file, as collectReferences sorts them. */
function sites(seed: number, files: number, contextLines: number): Reference[] {
  const rnd = mulberry32(seed);
  const out: Reference[] = [];
  for (let f = 0; f < files; f++) {
    const rel = `src/mod${String(f).padStart(4, "0")}.ts`;
    if (rnd() < 0.3)
      out.push({ relative_path: rel, line: 1, column: 10, containing_symbol: null, import: true });
    const secret = rnd() < 0.05;
    const n = 1 + Math.floor(rnd() * 3);
    for (let k = 0; k < n; k++) {
      const line = 10 + k * 7 + Math.floor(rnd() * 5);
      const code = `return core.compute(v) + ${"x".repeat(Math.floor(rnd() * 90))};`;
      const snippet =
        contextLines === 0
          ? code
          : [`${line - 1}: const v = ${k};`, `${line}: ${code}`, `${line + 1}: }`].join("\n");
      out.push({
        relative_path: rel,
        line,
        column: 5,
        containing_symbol: secret ? null : { name_path: `run${k % 2}`, kind: "Function" },
        ...(secret ? { secret: true as const } : { snippet }),
      });
    }
  }
  return out;
}

function fitted(refs: readonly Reference[], offset: number, max: number, shorten: boolean) {
  const page = refs.slice(offset);
  const answer = {
    symbol,
    files: groupReferences(shorten ? listable(page, max) : page),
    total: refs.length,
    complete: true,
  };
  const args = { max_answer_chars: max, ...(offset > 0 ? { offset } : {}) };
  const out = fitBudget(def, answer, max, args);
  return { json: out, text: renderAnswer(def, out) };
}

test("the page fitted from the listable sites is the page fitted from all of them", () => {
  let shortened = 0;
  for (const [seed, files, context] of [
    [1, 5, 0],
    [2, 400, 0],
    [3, 2000, 0],
    [4, 600, 2],
    [5, 60, 0],
  ] as const) {
    const refs = sites(seed, files, context);
    for (const max of [100, 1_000, 5_000, 20_000, 200_000])
      for (const offset of [0, 1, Math.floor(refs.length / 2), refs.length - 1]) {
        const page = refs.slice(offset);
        if (listable(page, max).length < page.length) shortened++;
        assert.deepEqual(
          fitted(refs, offset, max, true),
          fitted(refs, offset, max, false),
          `seed ${seed}, ${refs.length} sites, max ${max}, offset ${offset}`,
        );
      }
  }
  // Not vacuous: most large answers were handed over shortened.
  assert.ok(shortened > 20, `shortened ${shortened} times`);
});

test("listable keeps every site when their least size fits, and cuts a large answer near the budget", () => {
  const refs = sites(7, 3000, 0);
  assert.equal(listable(refs.slice(0, 3), 20_000).length, 3);
  const cut = listable(refs, 20_000);
  // Each site costs at least ~30 characters: a 20,000-character page lists well under 1,000.
  assert.ok(cut.length < 1_000 && cut.length > 100, `${cut.length} of ${refs.length}`);
  assert.deepEqual(cut, refs.slice(0, cut.length));
});
