/**
 * What scalpel can see of a project without a language server: languages, layout, manifests and
 * the facts each adapter reads from them (entry points, commands, workspaces), CI configuration.
 */
import { readdir } from "node:fs/promises";
import { extname } from "node:path";
import { adapters } from "../../language-servers/index.js";
import type { OnboardingFacts, ProjectTree } from "../languages/adapter.js";
import type { Project } from "../project/project.js";
import { readTextFile } from "../text/positions.js";

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
export const manifestReaders: readonly OnboardingFacts[] = adapters.flatMap((a) =>
  a.onboarding ? [a.onboarding] : [],
);

/** Top-level folders worth a first list_dir: the usual ones, and those the adapters name. */
export const sourceFolders: ReadonlySet<string> = new Set([
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
