// docs/tools.md is the contract; this keeps it in step with the code. Each registered tool has a
// "### `name`" section whose Parameters and Result tables name exactly the tool's input parameters
// and its own output fields (from the zod shapes in its definition); the envelope's fields and the
// error codes are listed once. A failure names the tool and the missing or extra name.
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { allTools } from "../../src/tools/index.js";
import { envelopeShape } from "../../src/tools/kit/envelope.js";

const root = new URL("../..", import.meta.url).pathname;
const doc = readFileSync(join(root, "docs", "tools.md"), "utf8");

/** The first-column names of the table that follows the line starting with `label` in `text`. */
function tableNames(text: string, label: string): string[] | null {
  const lines = text.split("\n");
  const at = lines.findIndex((l) => l.startsWith(label));
  if (at < 0) return null;
  if (/none\.\s*$/.test(lines[at]!)) return [];
  const names: string[] = [];
  let i = at;
  while (i < lines.length && !lines[i]!.startsWith("|")) i++;
  for (i += 2; i < lines.length && lines[i]!.startsWith("|"); i++) {
    const m = /^\|\s*`([^`]+)`\s*\|/.exec(lines[i]!);
    assert.ok(m, `docs/tools.md: a table row without a \`name\` in its first cell: ${lines[i]}`);
    names.push(m[1]!);
  }
  return names;
}

function toolSections(): Map<string, string> {
  const sections = new Map<string, string>();
  const parts = doc.split(/^### `([a-z_]+)`\s*$/m);
  for (let i = 1; i < parts.length; i += 2) {
    // A section ends at the next heading of any level.
    sections.set(parts[i]!, parts[i + 1]!.split(/^#{1,3} /m)[0]!);
  }
  return sections;
}

function diff(tool: string, what: string, documented: string[], actual: string[]): string[] {
  const missing = actual
    .filter((n) => !documented.includes(n))
    .map((n) => `${tool}: ${what} '${n}' is not documented`);
  const extra = documented
    .filter((n) => !actual.includes(n))
    .map((n) => `${tool}: documented ${what} '${n}' does not exist`);
  return [...missing, ...extra];
}

test("docs/tools.md has a section for every registered tool and no other", () => {
  const documented = [...toolSections().keys()];
  const registered = allTools.map((t) => t.name);
  assert.deepEqual(diff("docs/tools.md", "tool", documented, registered), []);
});

test("each tool's parameters and result fields in docs/tools.md match its zod shapes", () => {
  const sections = toolSections();
  const problems: string[] = [];
  for (const def of allTools) {
    const section = sections.get(def.name);
    if (section === undefined) continue; // reported by the test above
    const params = tableNames(section, "Parameters");
    const fields = tableNames(section, "Result");
    if (params === null) problems.push(`${def.name}: no "Parameters" table (or "Parameters: none.")`);
    else problems.push(...diff(def.name, "parameter", params, Object.keys(def.input)));
    if (fields === null) problems.push(`${def.name}: no "Result" table`);
    else problems.push(...diff(def.name, "result field", fields, Object.keys(def.output)));
  }
  assert.deepEqual(problems, []);
});

test("the envelope's fields are documented once, in their own table", () => {
  const section = doc.split(/^## The result envelope\s*$/m)[1]?.split(/^## /m)[0] ?? "";
  const names = tableNames(section, "| field") ?? [];
  assert.deepEqual(diff("envelope", "field", names, Object.keys(envelopeShape)), []);
});

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const full = join(dir, n);
    return statSync(full).isDirectory() ? sourceFiles(full) : n.endsWith(".ts") ? [full] : [];
  });
}

test("every error code the code can return is in the Errors table", () => {
  const section = doc.split(/^## Errors\s*$/m)[1]?.split(/^## /m)[0] ?? "";
  const documented = tableNames(section, "The message") ?? [];
  const used = new Set<string>();
  for (const f of [...sourceFiles(join(root, "src")), ...sourceFiles(join(root, "language-servers"))]) {
    const text = readFileSync(f, "utf8");
    for (const m of text.matchAll(/(?:new AppError|errorAnswer)\(\s*"([a-z_]+)"/g)) used.add(m[1]!);
  }
  assert.ok(used.has("invalid_argument") && used.has("no_active_project"), "the code scan finds codes");
  assert.deepEqual(
    diff("Errors table", "code", documented, [...used].sort()).filter((p) => p.includes("not documented")),
    [],
  );
  // A documented code must be one the code can produce or one ErrorCode declares.
  const declared = [
    ...readFileSync(join(root, "src", "core", "errors.ts"), "utf8").matchAll(/\|\s*"([a-z_]+)"/g),
  ].map((m) => m[1]!);
  for (const code of documented)
    assert.ok(used.has(code) || declared.includes(code), `documented code '${code}' exists nowhere`);
});
