// Nothing in the repository may refer to files outside it: a reader (or CI) has only the
// repository. The patterns are assembled from pieces so that this file does not match itself.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

const root = new URL("../..", import.meta.url).pathname;
const outside = [`/${"work"}/`, `${"shared"}/spec`, `${"shared"}/design.md`, `${"lsp"}-notes.md`];

test("no file in the repository mentions a path outside it", () => {
  // Tracked files and new ones not yet added (both minus what .gitignore excludes).
  const r = spawnSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: root,
    encoding: "utf8",
  });
  assert.equal(r.status, 0, `git ls-files failed: ${r.stderr}`);
  const files = r.stdout
    .split("\0")
    .filter((f) => f !== "" && !f.endsWith("package-lock.json") && !f.split("/").includes("node_modules"));
  assert.ok(files.includes("README.md"), "the file list is the repository's");
  const hits: string[] = [];
  for (const f of files) {
    let text: string;
    try {
      text = readFileSync(join(root, f), "utf8");
    } catch {
      continue; // listed but deleted in the working tree
    }
    for (const p of outside) if (text.includes(p)) hits.push(`${f} mentions ${p}`);
  }
  assert.deepEqual(hits, []);
});
