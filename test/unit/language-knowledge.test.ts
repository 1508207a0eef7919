// Adding a language touches its adapter file and the adapter list (issue #12): the adapter is the
// one home of a language's manifests, server binaries, build commands and folders. This test reads
// the code of src/ (outside src/lsp/, which has its own test) with comments dropped — only what
// runs and what is shown — and fails on a name of a built-in language's ecosystem, or on a string
// that is exactly a built-in adapter's id (`languages.includes("rust")`). Generic names stay out of
// the list: `.git`, `.gitignore`, `Makefile`, `README`. The few legitimate uses are listed below,
// each with its reason, and an entry that is no longer needed fails too (the list cannot go stale).
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { test } from "node:test";
import ts from "typescript";
import { adapters, probedAdapters } from "../../language-servers/index.js";
import { otherCodeExtensions } from "../../src/search/text-search.js";

const root = new URL("../..", import.meta.url).pathname;

/**
 * The ecosystems of the built-in languages (TypeScript/JavaScript, Rust, Dart, Go): manifests and
 * lockfiles, dependency folders, server binaries, compilers and build tools. Case-insensitive, on
 * word boundaries. A new built-in language adds its own names here.
 */
const names: readonly string[] = [
  // TypeScript / JavaScript
  "package\\.json",
  "package-lock",
  "tsconfig",
  "jsconfig",
  "pnpm",
  "pnpm-lock",
  "pnpm-workspace",
  "yarn",
  "bun\\.lockb?",
  "npm",
  "node_modules",
  "tsserver",
  "typescript-language-server",
  "tsc",
  "tsgo",
  // Rust
  "Cargo\\.toml",
  "Cargo\\.lock",
  "cargo",
  "rustc",
  "rustup",
  "rust-analyzer",
  "clippy",
  // Dart
  "pubspec",
  "analysis_options\\.yaml",
  "\\.dart_tool",
  "dart (?:analyze|test|pub|format|language-server)",
  "flutter",
  // Go
  "go\\.mod",
  "go\\.sum",
  "go\\.work",
  "gopls",
  "go (?:build|test|vet|list|run|install|generate)",
  // Python
  "pyproject\\.toml",
  "pyrightconfig",
  "pyright",
  "pyright-langserver",
  "requirements\\.txt",
  "setup\\.cfg",
  "setup\\.py",
  "Pipfile",
  "__pycache__",
  "\\.venv",
  "pytest",
  "mypy",
  "ruff",
];
const nameRule = new RegExp(`(?<![\\w.-])(?:${names.join("|")})(?![\\w-])`, "gi");

/**
 * Legitimate uses, by file: what may be named there and why. Every entry must still be needed.
 */
const allowed: Readonly<Record<string, { names: readonly string[]; why: string }>> = {
  "src/core/version.ts": { names: ["package.json"], why: "scalpel's own package.json, where its version is" },
  "src/servers/server-pool.ts": {
    names: ["node_modules"],
    why: "shortens a server command line for display: scalpel and its bundled servers are installed under node_modules",
  },
  "src/config/allowed-roots.ts": {
    names: ["package.json", "Cargo.toml"],
    why: "examples in an error message of what a project's root holds; nothing is read or listed by them",
  },
  "src/onboarding/manual.ts": {
    names: ["tsc", "cargo"],
    why: "examples in the instructions for the agent (what get_project_diagnostics runs)",
  },
  "src/config/project-config.ts": {
    names: ["tsserver"],
    why: "the values of project.yml's typescript_backend setting, which picks between the two TypeScript adapters",
  },
};

/**
 * A tool's or schema field's description (`description: "…"`, `.describe("…")`): text for the
 * agent, where a language's tools are examples ("tsc, cargo check"), not a list to extend.
 */
function isDescription(node: ts.Node): boolean {
  const parent = node.parent;
  if (
    !parent ||
    !(
      ts.isStringLiteral(node) ||
      ts.isTemplateExpression(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isBinaryExpression(node)
    )
  )
    return false;
  if (ts.isPropertyAssignment(parent) && parent.initializer === node)
    return ts.isIdentifier(parent.name) && parent.name.text === "description";
  return (
    ts.isCallExpression(parent) &&
    ts.isPropertyAccessExpression(parent.expression) &&
    parent.expression.name.text === "describe"
  );
}

/** The text of the code tokens of a TypeScript file: identifiers, keywords, literals; no comments. */
function codeOf(file: string): string {
  const sf = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    // getChildren() lists JSDoc comments as children too.
    if (node.kind >= ts.SyntaxKind.FirstJSDocNode && node.kind <= ts.SyntaxKind.LastJSDocNode) return;
    if (isDescription(node)) return;
    const children = node.getChildren(sf);
    if (children.length === 0) out.push(node.getText(sf));
    else for (const c of children) visit(c);
  };
  visit(sf);
  return out.join(" ");
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const full = join(dir, n);
    return statSync(full).isDirectory() ? sources(full) : n.endsWith(".ts") ? [full] : [];
  });
}

const ids = [...new Set(probedAdapters.map((a) => a.id))];
const idRule = new RegExp(`(["'\`])(?:${ids.join("|")})\\1`, "g");

/** Per project-relative file: the language names its code holds. */
function findings(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const file of sources(join(root, "src"))) {
    const rel = relative(root, file);
    if (rel.startsWith("src/lsp/")) continue;
    const code = codeOf(file);
    const found = [...code.matchAll(nameRule), ...code.matchAll(idRule)].map((m) => m[0]);
    if (found.length > 0) out.set(rel, [...new Set(found)]);
  }
  return out;
}

test("the scanner drops comments and keeps strings, templates and regular expressions", () => {
  const dir = mkdtempSync(join(tmpdir(), "scalpel-language-knowledge-"));
  try {
    const file = join(dir, "probe.ts");
    writeFileSync(
      file,
      [
        "/** a doc comment names gopls */",
        "// a line comment names cargo",
        "const a = /* a block comment names go.mod */ 'str-one';",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the probe file's own template literal
        "const b = `tpl-${a}-two`;",
        "const c = /^(rx|three)@/;",
        'const tool = { description: "runs tsc", shape: z.string().describe("per tsconfig.json") };',
      ].join("\n"),
    );
    const code = codeOf(file);
    for (const gone of ["gopls", "cargo", "go.mod", "tsc", "tsconfig"])
      assert.ok(!code.includes(gone), `${gone} in: ${code}`);
    for (const kept of ["'str-one'", "`tpl-${", "}-two`", "/^(rx|three)@/"])
      assert.ok(code.includes(kept), `${kept} in: ${code}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the rule finds what it is for", () => {
  const hits = (s: string) => [...s.matchAll(nameRule), ...s.matchAll(idRule)].map((m) => m[0]);
  assert.deepEqual(hits('read("Cargo.toml"); "go build ./..."; x.endsWith(".dart_tool")'), [
    "Cargo.toml",
    "go build",
    ".dart_tool",
  ]);
  assert.deepEqual(hits('languages.includes("rust") && id === `go`'), ['"rust"', "`go`"]);
  // Generic names and words that merely contain a name are not findings.
  assert.deepEqual(hits('".gitignore" "Makefile" "npmrc-like" "a tsconfigurator" "go on" "rustic"'), []);
  assert.deepEqual(ids.sort(), [...new Set(adapters.map((a) => a.id))].sort());
});

test("code outside language-servers/ names no built-in language's manifests, servers or build tools", () => {
  const found = findings();
  const offending: string[] = [];
  for (const [file, list] of found) {
    const ok = new Set(allowed[file]?.names ?? []);
    const rest = list.filter((n) => !ok.has(n));
    if (rest.length > 0) offending.push(`${file}: ${rest.join(", ")}`);
  }
  assert.deepEqual(
    offending,
    [],
    "move this knowledge into the language's adapter (src/languages/adapter.ts says which field holds it)",
  );
  for (const [file, entry] of Object.entries(allowed)) {
    for (const name of entry.names) {
      assert.ok(found.get(file)?.includes(name), `${file} no longer names ${name}: drop it from 'allowed'`);
    }
  }
});

test("search's extra code extensions repeat no adapter's: each extension has one home", () => {
  const served = probedAdapters.flatMap((a) => [...a.extensions, ...(a.otherSourceExtensions ?? [])]);
  assert.deepEqual(
    otherCodeExtensions.filter((e) => served.includes(e)),
    [],
  );
  assert.ok(served.includes(".go") && otherCodeExtensions.includes(".java"));
});
