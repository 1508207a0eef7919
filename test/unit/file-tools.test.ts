import * as assert from "node:assert/strict";
import { mkdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { z } from "zod";
import { AppError } from "../../src/core/errors.js";
import { log } from "../../src/core/log.js";
import { openProject } from "../../src/project/open-project.js";
import type { Project } from "../../src/project/project.js";
import type { ServerPool } from "../../src/servers/server-pool.js";
import { createTextFileTool } from "../../src/tools/create-text-file.js";
import { findFileTool } from "../../src/tools/find-file.js";
import type { ToolContext, ToolDef } from "../../src/tools/kit/define.js";
import { runTool } from "../../src/tools/kit/run.js";
import { listDirTool } from "../../src/tools/list-dir.js";
import { readFileTool } from "../../src/tools/read-file.js";
import { replaceContentTool } from "../../src/tools/replace-content.js";
import { searchForPatternTool } from "../../src/tools/search-for-pattern.js";
import type { Workspace } from "../../src/workspace/workspace.js";
import { makeTempProject, type TempProject } from "../helpers/fixtures.js";
import { type SearchFile, searchHits } from "../helpers/mcp.js";

let tmp: TempProject;
let project: Project;
let readOnlyProject: Project;
const written: string[][] = [];

async function put(rel: string, text: string): Promise<void> {
  const abs = join(tmp.dir, rel);
  await mkdir(dirname(abs), { recursive: true });
  await writeFile(abs, text);
}
const read = (rel: string) => readFile(join(tmp.dir, rel), "utf8");

function makeProject(readOnly: boolean): Project {
  // A project without language servers: writes are recorded, no file has a server.
  const pool = {
    didWrite: async (paths: string[]) => {
      written.push(paths);
    },
    adapterForPath: () => null,
  } as unknown as ServerPool;
  return openProject({ root: tmp.dir, readOnly, pool }, log);
}

function ctxFor(p: Project): ToolContext {
  return {
    project: p,
    workspace: { project: p } as unknown as Workspace,
    signal: new AbortController().signal,
    log,
    progress: () => {},
    wantsProgress: false,
    toolNames: [],
  } as unknown as ToolContext;
}

/** Parses like the SDK does (defaults applied), then runs the tool directly. */
// biome-ignore lint/suspicious/noExplicitAny: tools of every shape go through here
async function call(tool: ToolDef<any, any>, args: Record<string, unknown>, p = project): Promise<any> {
  return tool.run(z.object(tool.input).parse(args), ctxFor(p));
}

async function fails(promise: Promise<unknown>, code: string): Promise<AppError> {
  try {
    await promise;
  } catch (e) {
    assert.ok(e instanceof AppError, String(e));
    assert.equal(e.code, code, e.message);
    assert.ok(!e.message.includes(tmp.base), `host path in: ${e.message}`);
    return e;
  }
  assert.fail(`expected ${code}`);
}

before(async () => {
  tmp = await makeTempProject("scalpel-file-tools-");
  await put(".gitignore", "*.log\n");
  await put("src/a.ts", "export function alpha() {\n  return 1;\n}\n\nexport const beta = alpha();\n");
  await put("src/b.ts", "import { alpha } from './a';\nconsole.log(alpha());\n");
  await put("src/nested/c.ts", "// alpha here too\n");
  await put("src/emoji.ts", "const s = '😀'; const alpha = 2;\n");
  await put("docs/readme.md", "# Alpha\nalpha docs\n");
  await put("crlf.txt", "first\r\nsecond\r\nthird\r\n");
  await put("debug.log", "alpha in a log\n");
  await put("node_modules/dep/index.js", "alpha\n");
  await put(".env", "API_KEY=alpha-secret\n");
  await put(".env.example", "API_KEY=\n");
  await put("empty.txt", "");
  await writeFile(join(tmp.dir, "image.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0x61]));
  await writeFile(join(tmp.base, "outside.txt"), "alpha outside\n");
  await symlink(join(tmp.base, "outside.txt"), join(tmp.dir, "escape.txt"));
  project = makeProject(false);
  readOnlyProject = makeProject(true);
});
after(() => tmp.cleanup());

describe("read_file", () => {
  test("whole file and ranges, 1-based; end_line past EOF clamps", async () => {
    const all = await call(readFileTool, { relative_path: "src/a.ts" });
    assert.deepEqual(all, {
      relative_path: "src/a.ts",
      start_line: 1,
      end_line: 5,
      total_lines: 5,
      content: "export function alpha() {\n  return 1;\n}\n\nexport const beta = alpha();",
    });
    const part = await call(readFileTool, { relative_path: "./src/a.ts", start_line: 2, end_line: 99 });
    assert.equal(part.start_line, 2);
    assert.equal(part.end_line, 5);
    assert.equal(part.content.split("\n")[0], "  return 1;");
  });

  test("start_line past the end, end before start → invalid_argument", async () => {
    await fails(call(readFileTool, { relative_path: "src/a.ts", start_line: 6 }), "invalid_argument");
    await fails(
      call(readFileTool, { relative_path: "src/a.ts", start_line: 3, end_line: 2 }),
      "invalid_argument",
    );
  });

  test("CRLF lines, empty files", async () => {
    const r = await call(readFileTool, { relative_path: "crlf.txt", start_line: 2, end_line: 2 });
    assert.equal(r.content, "second");
    assert.equal(r.total_lines, 3);
    const e = await call(readFileTool, { relative_path: "empty.txt" });
    assert.equal(e.total_lines, 0);
    assert.equal(e.content, "");
  });

  test("refusals: secrets, outside, missing, directory, binary", async () => {
    await fails(call(readFileTool, { relative_path: ".env" }), "secret_file");
    await fails(call(readFileTool, { relative_path: "escape.txt" }), "path_outside_project");
    await fails(call(readFileTool, { relative_path: "../outside.txt" }), "path_outside_project");
    await fails(call(readFileTool, { relative_path: join(tmp.base, "outside.txt") }), "path_outside_project");
    await fails(call(readFileTool, { relative_path: "nope.ts" }), "file_not_found");
    await fails(call(readFileTool, { relative_path: "src" }), "invalid_argument");
    await fails(call(readFileTool, { relative_path: "image.png" }), "invalid_argument");
    const ok = await call(readFileTool, { relative_path: ".env.example" });
    assert.equal(ok.content, "API_KEY=");
  });

  test("over budget: whole lines up to the budget, truncated, and where to continue", async () => {
    const lines = Array.from({ length: 400 }, (_, i) => `line number ${i + 1} ${"x".repeat(40)}`);
    await put("big/big.dat", `${lines.join("\n")}\n`);
    const r = await call(readFileTool, { relative_path: "big/big.dat", max_answer_chars: 2000 });
    assert.equal(r.truncated, true);
    assert.ok(r.end_line < 400 && r.end_line > 5);
    assert.equal(r.content.split("\n").length, r.end_line);
    assert.match(r.hint, new RegExp(`start_line=${r.end_line + 1}`));
    assert.ok(JSON.stringify(r).length <= 2000);
  });
});

describe("list_dir", () => {
  test("direct children, ignored paths skipped, secrets listed by name only", async () => {
    const r = await call(listDirTool, {});
    assert.deepEqual(
      r.dirs.filter((d: string) => d === "docs" || d === "src" || d === "node_modules"),
      ["docs", "src"],
    );
    assert.ok(r.files.includes(".env"));
    assert.ok(r.files.includes("crlf.txt"));
    assert.ok(!r.files.includes("debug.log"));
    assert.ok(!r.dirs.includes("node_modules"));
    assert.ok(!r.files.includes("escape.txt"), "a symlink out of the root is not listed");
  });

  test("recursive, and skip_ignored=false", async () => {
    const r = await call(listDirTool, { relative_path: "src", recursive: true });
    assert.deepEqual(r.dirs, ["src/nested"]);
    assert.deepEqual(r.files, ["src/a.ts", "src/b.ts", "src/emoji.ts", "src/nested/c.ts"]);
    const all = await call(listDirTool, { skip_ignored: false });
    assert.ok(all.dirs.includes("node_modules"));
    assert.ok(all.files.includes("debug.log"));
  });

  test("an ignored directory asked for by name is listed", async () => {
    const r = await call(listDirTool, { relative_path: "node_modules", recursive: true });
    assert.deepEqual(r.files, ["node_modules/dep/index.js"]);
  });

  test("errors", async () => {
    await fails(call(listDirTool, { relative_path: "src/a.ts" }), "invalid_argument");
    await fails(call(listDirTool, { relative_path: "missing" }), "file_not_found");
    await fails(call(listDirTool, { relative_path: ".." }), "path_outside_project");
  });

  test("over budget through the wrapper: shortened with counts and truncated", async () => {
    for (let i = 0; i < 60; i++) await put(`many/file-${String(i).padStart(3, "0")}.dat`, "");
    const res = await runTool(
      listDirTool as unknown as ToolDef,
      { relative_path: "many", max_answer_chars: 600 },
      { workspace: { project } as unknown as Workspace, log, toolNames: [] },
    );
    const sc = res.structuredContent as { truncated: boolean; total_files: number; files: string[] };
    assert.equal(sc.truncated, true);
    assert.equal(sc.total_files, 60);
    assert.ok(sc.files.length < 60);
  });
});

describe("find_file", () => {
  test("glob on the base name, path globs, ignored skipped", async () => {
    assert.deepEqual((await call(findFileTool, { file_mask: "*.ts" })).files, [
      "src/a.ts",
      "src/b.ts",
      "src/emoji.ts",
      "src/nested/c.ts",
    ]);
    assert.deepEqual((await call(findFileTool, { file_mask: "*.ts", relative_path: "src/nested" })).files, [
      "src/nested/c.ts",
    ]);
    assert.deepEqual((await call(findFileTool, { file_mask: "src/*.ts" })).files, [
      "src/a.ts",
      "src/b.ts",
      "src/emoji.ts",
    ]);
    assert.deepEqual((await call(findFileTool, { file_mask: "*.log" })).files, []);
    assert.deepEqual((await call(findFileTool, { file_mask: "*.{md,txt}" })).files, [
      "crlf.txt",
      "docs/readme.md",
      "empty.txt",
    ]);
  });
});

describe("search_for_pattern", () => {
  test("matches with 1-based lines and numbered snippets; ignored, secret, binary and outside files skipped", async () => {
    const r = await call(searchForPatternTool, { pattern: "alpha" });
    const where = searchHits(r).map((m) => `${m.relative_path}:${m.line}`);
    assert.deepEqual(where, [
      "docs/readme.md:2",
      "src/a.ts:1",
      "src/a.ts:5",
      "src/b.ts:1",
      "src/b.ts:2",
      "src/emoji.ts:1",
      "src/nested/c.ts:1",
    ]);
    assert.equal(searchHits(r)[1]?.snippet, "1: export function alpha() {");
    // Each file is named once, its lines under it.
    assert.deepEqual(
      r.matches.map((f: SearchFile) => `${f.relative_path} ${f.hits.map((h) => h.line).join(",")}`),
      ["docs/readme.md 2", "src/a.ts 1,5", "src/b.ts 1,2", "src/emoji.ts 1", "src/nested/c.ts 1"],
    );
  });

  test("context lines, include/exclude globs, code_files_only", async () => {
    const r = await call(searchForPatternTool, {
      pattern: "return",
      relative_path: "src",
      context_lines: 1,
    });
    assert.deepEqual(r.matches, [
      {
        relative_path: "src/a.ts",
        hits: [{ line: 2, snippet: "1: export function alpha() {\n2:   return 1;\n3: }" }],
      },
    ]);
    const inc = await call(searchForPatternTool, { pattern: "alpha", include_glob: "*.md" });
    assert.deepEqual(
      inc.matches.map((m: SearchFile) => m.relative_path),
      ["docs/readme.md"],
    );
    const exc = await call(searchForPatternTool, { pattern: "alpha", exclude_glob: "src/**" });
    assert.deepEqual(
      exc.matches.map((m: SearchFile) => m.relative_path),
      ["docs/readme.md"],
    );
    const code = await call(searchForPatternTool, { pattern: "[Aa]lpha", code_files_only: true });
    assert.ok(code.matches.every((m: SearchFile) => m.relative_path.endsWith(".ts")));
  });

  test("multi-line patterns report the first line and show every matched line", async () => {
    const r = await call(searchForPatternTool, {
      pattern: "alpha\\(\\) \\{\\n\\s+return",
      relative_path: "src/a.ts",
    });
    assert.deepEqual(r.matches, [
      {
        relative_path: "src/a.ts",
        hits: [{ line: 1, snippet: "1: export function alpha() {\n2:   return 1;" }],
      },
    ]);
  });

  test("invalid regex, secret file named directly, ignored file named directly", async () => {
    const e = await fails(call(searchForPatternTool, { pattern: "foo(" }), "invalid_regex");
    assert.match(e.message, /Unterminated group|Invalid regular expression/);
    await fails(call(searchForPatternTool, { pattern: "KEY", relative_path: ".env" }), "secret_file");
    const log = await call(searchForPatternTool, { pattern: "alpha", relative_path: "debug.log" });
    assert.equal(searchHits(log).length, 1);
  });

  test("over budget through the wrapper: context goes, then whole matches, with N of TOTAL and the next page", async () => {
    const body = Array.from({ length: 300 }, (_, i) => `needle ${i} ${"y".repeat(30)}`).join("\n");
    await put("hay/h.txt", `${body}\n`);
    const args = { pattern: "needle", relative_path: "hay", context_lines: 2, max_answer_chars: 1000 };
    const res = await runTool(searchForPatternTool as unknown as ToolDef, args, {
      workspace: { project } as unknown as Workspace,
      log,
      toolNames: [],
    });
    const sc = res.structuredContent as {
      truncated: boolean;
      matches: SearchFile[];
      total: number;
      shown: number;
      files: number;
      next: string;
    };
    assert.equal(sc.truncated, true);
    assert.equal(sc.total, 300);
    assert.equal(sc.files, 1);
    assert.equal(sc.shown, searchHits(sc).length);
    assert.equal(sc.matches.length, 1, "one file, named once");
    assert.ok(sc.shown > 0 && sc.shown < 300);
    assert.equal(
      sc.matches[0]?.hits[0]?.snippet,
      `1: needle 0 ${"y".repeat(30)}`,
      "context dropped, the line kept",
    );
    assert.equal(sc.next, `search_for_pattern ${JSON.stringify({ ...args, offset: sc.shown })}`);
    assert.ok(JSON.stringify(sc).length <= 1000);
    assert.match(res.content[0]?.text ?? "", /300 matches in 1 file/);
    assert.match(res.content[0]?.text ?? "", new RegExp(`Listed 1–${sc.shown} of 300 matches`));
  });
});

describe("create_text_file", () => {
  test("creates files and parent dirs; dry run writes nothing", async () => {
    const dry = await call(createTextFileTool, {
      relative_path: "gen/new.ts",
      content: "export {};\n",
      dry_run: true,
    });
    assert.equal(dry.applied, false);
    assert.match(dry.diff, /\+\+\+ b\/gen\/new\.ts\n@@ -0,0 \+1,1 @@\n\+export \{\};/);
    await assert.rejects(stat(join(tmp.dir, "gen")));
    written.length = 0;
    const r = await call(createTextFileTool, { relative_path: "gen/new.ts", content: "export {};\n" });
    assert.equal(r.applied, true);
    assert.match(r.edit_id, /^e[0-9a-f]{8}$/);
    assert.deepEqual(r.files, ["gen/new.ts (+1 -0)"]);
    assert.equal(await read("gen/new.ts"), "export {};\n");
    assert.deepEqual(written, [[join(tmp.dir, "gen", "new.ts")]]);
  });

  test("existing file: file_exists without overwrite; overwrite keeps CRLF", async () => {
    await fails(call(createTextFileTool, { relative_path: "crlf.txt", content: "x\n" }), "file_exists");
    await put("crlf2.txt", "a\r\nb\r\n");
    await call(createTextFileTool, { relative_path: "crlf2.txt", content: "c\nd\n", overwrite: true });
    assert.equal(await read("crlf2.txt"), "c\r\nd\r\n");
  });

  test("refusals: outside, through a symlink, secrets, read-only project", async () => {
    await fails(call(createTextFileTool, { relative_path: "../x.txt", content: "" }), "path_outside_project");
    await fails(
      call(createTextFileTool, { relative_path: "escape.txt", content: "", overwrite: true }),
      "path_outside_project",
    );
    await fails(call(createTextFileTool, { relative_path: ".env.local", content: "K=v" }), "secret_file");
    await fails(
      call(createTextFileTool, { relative_path: "ro.txt", content: "x" }, readOnlyProject),
      "read_only",
    );
    assert.equal(await read("../outside.txt"), "alpha outside\n");
  });
});

describe("replace_content", () => {
  test("literal, exactly once", async () => {
    await put("r/one.ts", "const a = 1;\nconst b = 2;\n");
    const r = await call(replaceContentTool, {
      relative_path: "r/one.ts",
      needle: "b = 2",
      replacement: "b = 3",
    });
    assert.equal(r.applied, true);
    assert.deepEqual(r.files, ["r/one.ts (+1 -1)"]);
    assert.equal(await read("r/one.ts"), "const a = 1;\nconst b = 3;\n");
    assert.match(r.diff, /-const b = 2;\n\+const b = 3;/);
  });

  test("no_match and multiple_matches (with count and lines)", async () => {
    await put("r/two.ts", "x();\ny();\nx();\n");
    await fails(
      call(replaceContentTool, { relative_path: "r/two.ts", needle: "z()", replacement: "" }),
      "no_match",
    );
    const e = await fails(
      call(replaceContentTool, { relative_path: "r/two.ts", needle: "x()", replacement: "w()" }),
      "multiple_matches",
    );
    assert.match(e.message, /2 times/);
    assert.match(e.message, /lines 1, 3/);
    await call(replaceContentTool, {
      relative_path: "r/two.ts",
      needle: "x()",
      replacement: "w()",
      allow_multiple: true,
    });
    assert.equal(await read("r/two.ts"), "w();\ny();\nw();\n");
  });

  test("regex with groups; $ in literal replacement is literal", async () => {
    await put("r/re.ts", "let foo = 1;\nlet bar = 2;\n");
    await call(replaceContentTool, {
      relative_path: "r/re.ts",
      needle: "^let (\\w+) = (?<n>\\d+);$",
      replacement: "const $1 = $<n>0; // $$",
      mode: "regex",
      allow_multiple: true,
    });
    assert.equal(await read("r/re.ts"), "const foo = 10; // $\nconst bar = 20; // $\n");
    await call(replaceContentTool, { relative_path: "r/re.ts", needle: "foo", replacement: "$1$&" });
    assert.equal(await read("r/re.ts"), "const $1$& = 10; // $\nconst bar = 20; // $\n");
    await fails(
      call(replaceContentTool, { relative_path: "r/re.ts", needle: "(", replacement: "", mode: "regex" }),
      "invalid_regex",
    );
  });

  test("CRLF file and BOM: a needle written with \\n matches, endings and BOM stay", async () => {
    await writeFile(join(tmp.dir, "r/crlf.ts"), "\uFEFFfunction f() {\r\n  return 1;\r\n}\r\n");
    await call(replaceContentTool, {
      relative_path: "r/crlf.ts",
      needle: "{\n  return 1;\n}",
      replacement: "{\n  return 2;\n}",
    });
    assert.equal(await read("r/crlf.ts"), "\uFEFFfunction f() {\r\n  return 2;\r\n}\r\n");
  });

  test("emoji before the match", async () => {
    await put("r/emoji.ts", "const s = '😀'; const n = 1;\n");
    await call(replaceContentTool, { relative_path: "r/emoji.ts", needle: "n = 1", replacement: "n = 2" });
    assert.equal(await read("r/emoji.ts"), "const s = '😀'; const n = 2;\n");
  });

  test("dry run, secrets, read-only", async () => {
    await put("r/d.ts", "a\n");
    const r = await call(replaceContentTool, {
      relative_path: "r/d.ts",
      needle: "a",
      replacement: "b",
      dry_run: true,
    });
    assert.equal(r.applied, false);
    assert.equal(r.edit_id, undefined);
    assert.match(r.diff, /-a\n\+b/);
    assert.equal(await read("r/d.ts"), "a\n");
    await fails(
      call(replaceContentTool, { relative_path: ".env", needle: "API", replacement: "X" }),
      "secret_file",
    );
    await fails(
      call(replaceContentTool, { relative_path: "r/d.ts", needle: "a", replacement: "b" }, readOnlyProject),
      "read_only",
    );
  });
});
