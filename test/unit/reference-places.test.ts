// find_referencing_symbols lists a site once by its place in the project, however the server spells
// the file's URI (a symlinked alias of the root, a percent-encoded character). A real sandbox on a
// real directory decides what is the same file.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { pathToFileURL } from "node:url";
import { oncePerPlace } from "../../src/references/sites.js";
import { Sandbox } from "../../src/security/sandbox.js";

const base = realpathSync(mkdtempSync(join(tmpdir(), "scalpel-places-")));
const root = join(base, "project");
mkdirSync(join(root, "src"), { recursive: true });
writeFileSync(join(root, "src", "a.ts"), "export const a = 1;\n");
symlinkSync(root, join(base, "alias"));
after(() => rmSync(base, { recursive: true, force: true }));

const at = (uri: string, line: number, character: number) => ({
  uri,
  range: { start: { line, character }, end: { line, character: character + 1 } },
});

test("one site named by three URIs is listed once; other columns and files stay; outside is dropped", () => {
  const plain = pathToFileURL(join(root, "src", "a.ts")).href;
  const viaAlias = pathToFileURL(join(base, "alias", "src", "a.ts")).href;
  const encoded = plain.replace(/a\.ts$/, "%61.ts");
  assert.notEqual(encoded, plain);
  const out = oncePerPlace(
    [
      at(plain, 2, 4),
      at(viaAlias, 2, 4),
      at(encoded, 2, 4),
      at(plain, 2, 9),
      at(pathToFileURL(join(base, "elsewhere.ts")).href, 2, 4),
    ],
    new Sandbox(root),
  );
  assert.deepEqual(
    out.map(({ loc, where }) => [
      where.kind === "file" ? where.path.rel : where.rel,
      loc.range.start.character,
    ]),
    [
      ["src/a.ts", 4],
      ["src/a.ts", 9],
    ],
  );
});
