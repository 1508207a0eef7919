// @tsserver-only scalpel's own behaviour (protocol, limits, security), not the server's: one backend is enough
/**
 * The sandbox over the built CLI: for every tool that takes a path, absolute paths, `..` escapes,
 * NUL bytes and symlinks (file and directory) that leave the root are refused with an error
 * result; no result ever contains the content or names of files outside the root, nothing outside
 * is written, and project-wide listings/searches do not follow symlinks out of the root.
 */
import { strict as assert } from "node:assert";
import { randomBytes } from "node:crypto";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { copyFixture, hashTree, type TempProject } from "../helpers/fixtures.js";
import { callOk, type ScalpelHandle, startScalpel } from "../helpers/mcp.js";

const SENTINEL = `SENTINEL_${randomBytes(6).toString("hex")}`;
const SECRET_FILE = `secret_${randomBytes(4).toString("hex")}.ts`;

/** Every tool that takes a path, with arguments that put `p` in its path parameter. */
const pathTools: Record<string, (p: string) => Record<string, unknown>> = {
  read_file: (p) => ({ relative_path: p }),
  list_dir: (p) => ({ relative_path: p, recursive: true }),
  find_file: (p) => ({ file_mask: "*", relative_path: p }),
  search_for_pattern: (p) => ({ pattern: ".", relative_path: p }),
  create_text_file: (p) => ({ relative_path: p, content: "pwned\n", overwrite: true }),
  replace_content: (p) => ({
    relative_path: p,
    needle: SENTINEL,
    replacement: "pwned",
    allow_multiple: true,
  }),
  get_symbols_overview: (p) => ({ relative_path: p, depth: 2 }),
  find_symbol: (p) => ({ name_path_pattern: SENTINEL, relative_path: p, include_body: true }),
  find_referencing_symbols: (p) => ({ name_path: SENTINEL, relative_path: p }),
  find_implementations: (p) => ({ name_path: SENTINEL, relative_path: p }),
  find_declaration: (p) => ({ relative_path: p, line: 1, identifier: SENTINEL }),
  replace_symbol_body: (p) => ({ name_path: SENTINEL, relative_path: p, body: "export function pwned() {}" }),
  insert_before_symbol: (p) => ({ name_path: SENTINEL, relative_path: p, body: "export const pwned = 1;" }),
  insert_after_symbol: (p) => ({ name_path: SENTINEL, relative_path: p, body: "export const pwned = 1;" }),
  rename_symbol: (p) => ({ name_path: SENTINEL, relative_path: p, new_name: "pwned" }),
  safe_delete_symbol: (p) => ({ name_path: SENTINEL, relative_path: p }),
  get_diagnostics_for_file: (p) => ({ relative_path: p }),
};

const hostilePaths = [
  "/etc/passwd",
  "../outside.txt",
  "../outside.ts",
  "a/../../x",
  "src/../../outside.ts",
  "src/\u0000x.ts",
  "link.ts", // symlink to ../outside.ts
  "src/linked.ts", // symlink to ../../outside.ts, inside the tsconfig's include
  "linkdir", // symlink to a directory outside
  `linkdir/${SECRET_FILE}`,
  "linkdir/new-file.ts", // a new file whose parent resolves outside
];

describe("sandbox (e2e)", () => {
  let fx: TempProject;
  let h: ScalpelHandle;
  let outsideBefore: Record<string, string>;
  let insideBefore: Record<string, string>;

  const outsideOnly = (tree: Record<string, string>) =>
    Object.fromEntries(Object.entries(tree).filter(([k]) => !k.startsWith("project/")));
  const projectFiles = () => hashTree(fx.dir);

  before(async () => {
    fx = await copyFixture("ts-basic");
    const outsideTs = `export function ${SENTINEL}(): string {\n  return "${SENTINEL}";\n}\n`;
    await writeFile(join(fx.base, "outside.txt"), `${SENTINEL}\n`);
    await writeFile(join(fx.base, "outside.ts"), outsideTs);
    await writeFile(join(fx.base, "x"), `${SENTINEL}\n`);
    await mkdir(join(fx.base, "outside-dir"));
    await writeFile(join(fx.base, "outside-dir", SECRET_FILE), outsideTs);
    await symlink("../outside.ts", join(fx.dir, "link.ts"));
    await symlink("../../outside.ts", join(fx.dir, "src", "linked.ts"));
    await symlink("../outside-dir", join(fx.dir, "linkdir"));
    await symlink("src/format.ts", join(fx.dir, "alias.ts")); // stays inside: allowed
    outsideBefore = outsideOnly(await hashTree(fx.base));
    insideBefore = await projectFiles();
    h = await startScalpel({ project: fx.dir });
  });

  after(async () => {
    await h?.close();
    await fx?.cleanup();
  });

  /** Outside content, outside file names (unless the caller sent that name itself) or host paths. */
  const leaks = (s: string, sentPath = "") =>
    s.includes(SENTINEL) ||
    (!sentPath.includes(SECRET_FILE) && s.includes(SECRET_FILE)) ||
    s.includes(fx.base);

  it("registers every tool of the matrix (an unknown tool would fail vacuously)", async () => {
    const { tools } = await h.client.listTools();
    const names = tools.map((t) => t.name);
    const missing = Object.keys(pathTools).filter((t) => !names.includes(t));
    assert.deepEqual(missing, []);
  });

  it("control: ordinary paths and a symlink that stays inside work", async () => {
    const r = await callOk<{ content: string }>(h, "read_file", { relative_path: "src/money.ts" });
    assert.ok(r.content.includes("export class Money"));
    const a = await callOk<{ content: string }>(h, "read_file", { relative_path: "alias.ts" });
    assert.ok(a.content.includes("formatMoney"), "a symlink that resolves inside the root is fine");
  });

  it("refuses every hostile path in every tool that takes a path, with an error result", async () => {
    const failures: string[] = [];
    for (const [tool, args] of Object.entries(pathTools)) {
      for (const p of hostilePaths) {
        const label = `${tool}(${JSON.stringify(p)})`;
        try {
          const r = await h.call(tool, args(p));
          const all = `${r.text}\n${JSON.stringify(r.structured ?? null)}`;
          if (!r.isError) failures.push(`${label}: not refused: ${r.text.slice(0, 200)}`);
          else if (r.text.trim() === "") failures.push(`${label}: error result without a message`);
          if (leaks(all, p))
            failures.push(
              `${label}: result leaks outside content, names or host paths: ${all.slice(0, 300)}`,
            );
        } catch (e) {
          failures.push(
            `${label}: threw a protocol error instead of an error result: ${String(e).slice(0, 200)}`,
          );
        }
      }
    }
    assert.deepEqual(failures, []);
  });

  it("wrote nothing, outside or inside the root", async () => {
    assert.deepEqual(outsideOnly(await hashTree(fx.base)), outsideBefore);
    assert.deepEqual(await projectFiles(), insideBefore);
  });

  it("project-wide listings, searches and symbol queries do not follow symlinks out of the root", async () => {
    const queries: Array<[string, Record<string, unknown>]> = [
      ["list_dir", { relative_path: ".", recursive: true, skip_ignored: false }],
      ["find_file", { file_mask: "*", relative_path: "." }],
      ["find_file", { file_mask: "secret_*" }],
      ["search_for_pattern", { pattern: SENTINEL }],
      ["search_for_pattern", { pattern: "SENTINEL_", relative_path: "src" }],
      ["find_symbol", { name_path_pattern: SENTINEL }],
      ["find_symbol", { name_path_pattern: "SENTINEL", substring_matching: true, include_body: true }],
      ["get_symbols_overview", { relative_path: ".", depth: 1 }],
      ["get_symbols_overview", { relative_path: "src", depth: 1 }],
    ];
    const failures: string[] = [];
    for (const [tool, args] of queries) {
      const label = `${tool}(${JSON.stringify(args)})`;
      try {
        const r = await h.call(tool, args);
        const all = `${r.text}\n${JSON.stringify(r.structured ?? null)}`;
        if (r.isError) failures.push(`${label}: unexpected error: ${r.text.slice(0, 200)}`);
        if (leaks(all)) failures.push(`${label}: leaks: ${all.slice(0, 400)}`);
      } catch (e) {
        failures.push(`${label}: threw: ${String(e).slice(0, 200)}`);
      }
    }
    assert.deepEqual(failures, []);
  });

  it("memory names cannot escape the memory store", async () => {
    const failures: string[] = [];
    for (const [tool, args] of [
      ["write_memory", { name: "../escape", content: "x" }],
      ["write_memory", { name: "/abs", content: "x" }],
      ["read_memory", { name: "../../outside" }],
      ["read_memory", { name: "a/../../../outside" }],
      ["delete_memory", { name: "../../outside" }],
    ] as const) {
      try {
        const r = await h.call(tool, args);
        if (!r.isError)
          failures.push(`${tool}(${JSON.stringify(args)}): not refused: ${r.text.slice(0, 200)}`);
        if (leaks(`${r.text}${JSON.stringify(r.structured ?? null)}`)) failures.push(`${tool}: leaks`);
      } catch (e) {
        failures.push(`${tool}(${JSON.stringify(args)}): threw: ${String(e).slice(0, 200)}`);
      }
    }
    assert.deepEqual(failures, []);
    assert.deepEqual(outsideOnly(await hashTree(fx.base)), outsideBefore);
  });
});
