import { readdir } from "node:fs/promises";
import { extname } from "node:path";
import { z } from "zod";
import type { OnboardingFacts, ProjectTree } from "../../language-servers/adapter.js";
import { adapters } from "../../language-servers/index.js";
import { readTextFile } from "../edits/text.js";
import { memoryStoreOf } from "../memory/store.js";
import type { Project } from "../project/project.js";
import { defineTool, readOnly } from "./tool.js";

/** The memories onboarding asks for, with what each should hold. */
export const onboardingMemories: ReadonlyArray<readonly [string, string]> = [
  ["overview", "what the project does, its main parts and entry points"],
  [
    "architecture",
    "modules and how they depend on each other; where the core logic lives; data flow of one typical operation",
  ],
  ["commands", "exact commands to install, build, test (all and one file), lint, format and run"],
  ["conventions", "code style, naming, error handling, logging, how tests are written and where they live"],
  [
    "gotchas",
    "anything surprising you had to find out the hard way (generated files, slow steps, fragile areas)",
  ],
];

/** What scalpel can see of a project without a language server; every path is root-relative. */
export interface ProjectFacts {
  languages: string[];
  /** Top-level entries, directories with a trailing `/`. */
  topLevel: string[];
  /** Build manifests found at the root. */
  manifests: string[];
  readme: string | null;
  entryPoints: string[];
  /** Commands with where they come from, e.g. `pnpm test` (package.json: vitest run). */
  commands: string[];
  /** The package manager and what says so, e.g. `pnpm (pnpm-lock.yaml)`. */
  packageManager: string | null;
  /** Workspace package directories. */
  workspaces: string[];
  /** Other facts from the manifests, one line each (a Go module's path and Go version). */
  notes: string[];
  /**
   * A small source file worth a full get_symbols_overview: an entry point or a file under the
   * source folders, in a language scalpel serves. A folder's overview comes back as counts.
   */
  overviewFile: string | null;
  /** CI configuration files. */
  ci: string[];
}

const maxManifestBytes = 512 * 1024;

/** A project text file through the sandbox, or null when it is missing, secret, unsafe or too big. */
async function readRootFile(project: Project, rel: string): Promise<string | null> {
  try {
    const path = project.sandbox.resolve(rel, { mustExist: true, kind: "file" });
    const { text } = await readTextFile(path.abs, path.rel);
    return text.length > maxManifestBytes ? null : text;
  } catch {
    return null;
  }
}

/** Root-relative view for manifest readers: only visible (existing, not ignored, not secret) paths. */
function treeOf(project: Project): ProjectTree {
  const visible = (rel: string, dir: boolean) => !project.ignore.isIgnored(rel, dir);
  return {
    async isFile(rel) {
      try {
        project.sandbox.resolve(rel, { mustExist: true, kind: "file" });
        return visible(rel, false);
      } catch {
        return false;
      }
    },
    read: (rel) => (visible(rel, false) ? readRootFile(project, rel) : Promise.resolve(null)),
    dirs: (rel) => visibleNames(project, rel, true),
    files: (rel) => visibleNames(project, rel, false),
  };
}

/** The names of the visible directories (or files) directly under `rel`, sorted. */
async function visibleNames(project: Project, rel: string, dirs: boolean): Promise<string[]> {
  const base = rel === "." || rel === "" ? "" : `${rel}/`;
  const names: string[] = [];
  for (const e of await listNames(project, rel)) {
    if (e.dir !== dirs || project.ignore.isIgnored(`${base}${e.name}`, e.dir)) continue;
    if (!dirs) {
      try {
        // A secret file's name is listed by listNames; a manifest reader gets no such file.
        project.sandbox.resolve(`${base}${e.name}`, { mustExist: true, kind: "file" });
      } catch {
        continue;
      }
    }
    names.push(e.name);
  }
  return names.sort();
}

/** Bigger files get counts instead of a symbol list within the default answer budget. */
const maxOverviewBytes = 30_000;

async function smallSourceFile(project: Project, rel: string): Promise<boolean> {
  if (!codeExtensions.has(extname(rel).toLowerCase())) return false;
  try {
    const { text } = await readTextFile(
      project.sandbox.resolve(rel, { mustExist: true, kind: "file" }).abs,
      rel,
    );
    return (
      text.length <= maxOverviewBytes && declaresSomething(text) && !project.ignore.isIgnored(rel, false)
    );
  } catch {
    return false;
  }
}

/**
 * False for a barrel of re-exports and imports only: its overview is empty (date-fns `src/index.ts`
 * is 250 lines of `export * from`), so it is a poor first call.
 */
function declaresSomething(text: string): boolean {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*(\/\/|#).*$/gm, "");
  const statements = code.split(/;|\n(?=\s*(?:export|import)\b)/).map((st) => st.trim());
  return statements.some(
    (st) => st !== "" && !/^(export|import)\b[\s\S]*\bfrom\s*["'][^"']+["']$|^import\s*["']/.test(st),
  );
}

const codeExtensions: ReadonlySet<string> = new Set(adapters.flatMap((a) => a.extensions));

async function listNames(project: Project, rel: string): Promise<Array<{ name: string; dir: boolean }>> {
  try {
    // Names only: a secret file's name may be shown (an agent should know `.env` exists).
    const path = project.sandbox.resolveName(rel, { mustExist: true, kind: "dir" });
    const entries = await readdir(path.abs, { withFileTypes: true });
    return entries.map((e) => ({ name: e.name, dir: e.isDirectory() }));
  } catch {
    return [];
  }
}

/** The built-in languages' manifest readers, in the adapters' order. */
const manifestReaders: readonly OnboardingFacts[] = adapters.flatMap((a) =>
  a.onboarding ? [a.onboarding] : [],
);

/** Top-level folders worth a first list_dir: the usual ones, and those the adapters name. */
const sourceFolders: ReadonlySet<string> = new Set([
  "src",
  "lib",
  "bin",
  "app",
  "packages",
  ...manifestReaders.flatMap((r) => r.sourceFolders ?? []),
]);

/**
 * Build files of tools that no adapter reads, named when present at the root (a Makefile's targets
 * are read below). A language that gets an adapter takes its manifest out of this list.
 */
const otherBuildFiles: readonly string[] = ["Makefile", "justfile"];

function fromMakefile(text: string, facts: ProjectFacts): void {
  const targets = [...text.matchAll(/^([A-Za-z0-9][A-Za-z0-9_.-]*)\s*:(?!=)/gm)].map((m) => m[1]!);
  for (const t of [...new Set(targets)].slice(0, 15)) facts.commands.push(`make ${t} (Makefile)`);
}

export async function projectFacts(project: Project, languages: readonly string[]): Promise<ProjectFacts> {
  const facts: ProjectFacts = {
    languages: [...languages],
    topLevel: [],
    manifests: [],
    readme: null,
    entryPoints: [],
    commands: [],
    packageManager: null,
    workspaces: [],
    notes: [],
    overviewFile: null,
    ci: [],
  };
  const top = await listNames(project, ".");
  facts.topLevel = top
    .filter((e) => !e.name.startsWith(".") && !project.ignore.isIgnored(e.name, e.dir))
    .map((e) => (e.dir ? `${e.name}/` : e.name))
    .sort();
  facts.readme = top.find((e) => !e.dir && /^readme(\.|$)/i.test(e.name))?.name ?? null;

  // Where a first overview is looked for when no entry point is small source code.
  const files = new Set<string>();
  for (const dir of ["src", "lib"]) {
    for (const e of await listNames(project, dir)) if (!e.dir) files.add(`${dir}/${e.name}`);
  }
  const tree = treeOf(project);
  for (const reader of manifestReaders) {
    const found = await reader.facts(tree);
    if (found === null) continue;
    for (const f of found.buildFiles) if (!facts.manifests.includes(f)) facts.manifests.push(f);
    facts.entryPoints.push(...found.entryPoints);
    facts.commands.push(...found.commands);
    facts.packageManager ??= found.packageManager ?? null;
    facts.workspaces.push(...(found.workspaces ?? []));
    facts.notes.push(...(found.notes ?? []));
  }
  for (const name of otherBuildFiles) {
    if (top.some((e) => !e.dir && e.name === name) && !facts.manifests.includes(name))
      facts.manifests.push(name);
  }
  const make = facts.manifests.includes("Makefile") ? await readRootFile(project, "Makefile") : null;
  if (make !== null) fromMakefile(make, facts);

  facts.overviewFile = await overviewFileOf(project, facts.entryPoints, files);

  for (const e of await listNames(project, ".github/workflows")) {
    if (!e.dir && /\.ya?ml$/.test(e.name)) facts.ci.push(`.github/workflows/${e.name}`);
  }
  for (const name of [".gitlab-ci.yml", ".ci", ".circleci", "Jenkinsfile"]) {
    if (top.some((e) => e.name === name)) facts.ci.push(name);
  }
  return facts;
}

/** The first entry point, else the first file under src/ or lib/, that is small source code. */
async function overviewFileOf(
  project: Project,
  entryPoints: readonly string[],
  files: ReadonlySet<string>,
): Promise<string | null> {
  // Entry points read `path (where it comes from)`; workspace members list is not a path.
  const candidates = [...entryPoints.map((e) => e.split(" ")[0] ?? ""), ...[...files].sort()];
  for (const rel of candidates) if (await smallSourceFile(project, rel)) return rel;
  return null;
}

/** The onboarding text: facts, an exploration plan, and the memories to write. */
export async function onboardingInstructions(
  project: Project,
  languages: readonly string[],
): Promise<string> {
  const facts = await projectFacts(project, languages);
  const existing = await memoryStoreOf(project).names();
  const seen: string[] = [];
  const add = (label: string, items: readonly string[], limit = 40) => {
    if (items.length === 0) return;
    const shown =
      items.slice(0, limit).join(", ") + (items.length > limit ? `, … (${items.length - limit} more)` : "");
    seen.push(`- ${label}: ${shown}`);
  };
  add("Languages with a language server", facts.languages);
  add("Top level", facts.topLevel);
  add("Build files", facts.manifests);
  if (facts.packageManager) seen.push(`- Package manager: ${facts.packageManager}`);
  add("Workspace packages", facts.workspaces);
  add("Entry points", facts.entryPoints);
  for (const note of facts.notes) seen.push(`- ${note}`);
  add("CI configuration", facts.ci);
  if (facts.readme) seen.push(`- README: ${facts.readme}`);

  const sourceDirs = facts.topLevel.filter((e) => sourceFolders.has(e.slice(0, -1)) && e.endsWith("/"));
  const overviewTargets =
    sourceDirs.length > 0
      ? sourceDirs.map((d) => `'${d.slice(0, -1)}'`).join(", ")
      : "the main source folders";
  const missing = onboardingMemories.filter(([name]) => !existing.includes(name));

  const lines = [
    `# Onboarding '${project.name}'`,
    "",
    "What scalpel sees:",
    ...(seen.length > 0 ? seen : ["- An empty or unrecognised project: start with list_dir."]),
    "",
    "Commands found (verify before writing them down; run nothing destructive):",
    ...(facts.commands.length > 0
      ? facts.commands.map((c) => `- ${c}`)
      : [
          `- none in ${[...manifestReaders.flatMap((r) => r.manifests), "a Makefile"].join(", ")}: look at the README and CI configuration.`,
        ]),
    "",
    "Explore, in this order:",
    `1. ${facts.readme ? `read_file '${facts.readme}'` : "list_dir on the root"}, then list_dir on ${overviewTargets}.`,
    facts.overviewFile
      ? `2. get_symbols_overview on '${facts.overviewFile}' (a folder's overview lists the top-level symbols of every file in it; a file's shows them with their members at depth 1), then on the central files it leads to.`
      : "2. get_symbols_overview on the central folders and files you found (a folder's overview lists the top-level symbols of every file in it).",
    `3. find_symbol with include_body: true on the entry points${facts.entryPoints.length > 0 ? " listed above" : ""}.`,
    "4. find_referencing_symbols on two or three central classes or functions to learn how the parts connect.",
    `5. Confirm how to build, test and lint${facts.ci.length > 0 ? ` (the CI configuration ${facts.ci[0]} shows what really runs)` : ""}.`,
    "",
    existing.length > 0
      ? `Memories already written: ${existing.join(", ")}. Read them first and update them with edit_memory rather than rewriting.`
      : "No memories exist yet.",
    missing.length > 0
      ? "Then write these memories with write_memory (short, factual markdown; name files by relative path and symbols by name path):"
      : "All the standard memories exist; keep them accurate when you learn something new:",
    ...(missing.length > 0 ? missing : onboardingMemories).map(([name, what]) => `- ${name}: ${what}.`),
    "",
    "Memories are for facts that stay true across sessions; do not store task progress or code in them.",
  ];
  return lines.join("\n");
}

export const onboardingTool = defineTool({
  name: "onboarding",
  title: "Onboarding instructions",
  description:
    "Returns concrete instructions for getting to know this project — what to explore with which tools and which memories to write — built from what scalpel sees (languages, layout, entry points, build and test commands). Call it when activate_project says onboarding is recommended.",
  input: {},
  output: { instructions: z.string() },
  annotations: readOnly,
  async run(_args, ctx) {
    return { instructions: await onboardingInstructions(ctx.project, ctx.workspace.languages) };
  },
  render: (r) => r.instructions,
});
