/**
 * What a JavaScript/TypeScript repository's manifests say, told truthfully: the package manager its
 * lockfile names, its scripts as that manager runs them, its workspace packages, and entry points
 * mapped back from build outputs (`dist/index.cjs`) to the sources that exist in the tree. A path is
 * named only when it exists and is not ignored; an output with no obvious source is left out. The
 * TypeScript adapters' `onboarding` (src/onboarding/facts.ts reads it).
 */
import { posix } from "node:path";
import picomatch from "picomatch";
import { parse as parseYaml } from "yaml";
import type { OnboardingFacts, ProjectTree } from "../src/languages/adapter.js";

export type PackageManager = "npm" | "pnpm" | "yarn" | "bun";

/** Lockfiles in the order they are trusted when several exist. */
const lockfiles: ReadonlyArray<readonly [string, PackageManager]> = [
  ["pnpm-lock.yaml", "pnpm"],
  ["yarn.lock", "yarn"],
  ["bun.lock", "bun"],
  ["bun.lockb", "bun"],
  ["package-lock.json", "npm"],
  ["npm-shrinkwrap.json", "npm"],
];

export interface NodeFacts {
  packageManager: PackageManager;
  /** Where the manager was read from, e.g. `pnpm-lock.yaml`, `package.json packageManager`. */
  packageManagerFrom: string | null;
  entryPoints: string[];
  commands: string[];
  /** Workspace package directories, root-relative. */
  workspaces: string[];
}

type Pkg = Record<string, unknown>;

function parsePkg(text: string | null): Pkg | null {
  if (text === null) return null;
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Pkg) : null;
  } catch {
    return null;
  }
}

async function packageManagerOf(
  pkg: Pkg,
  tree: ProjectTree,
): Promise<{ pm: PackageManager; from: string | null }> {
  // Corepack's field is the repository's own statement, so it wins over lockfiles.
  const field =
    typeof pkg.packageManager === "string" ? /^(npm|pnpm|yarn|bun)@/.exec(pkg.packageManager) : null;
  if (field) return { pm: field[1] as PackageManager, from: "package.json packageManager" };
  for (const [file, pm] of lockfiles) if (await tree.isFile(file)) return { pm, from: file };
  return { pm: "npm", from: null };
}

/** How the manager runs a script: `npm test`, `pnpm run build`; bun's `bun test` is its own runner. */
export function scriptCommand(pm: PackageManager, script: string): string {
  if (pm !== "bun" && (script === "test" || script === "start")) return `${pm} ${script}`;
  return `${pm} run ${script}`;
}

/** How the manager runs one workspace package's script. */
function memberScriptCommand(
  pm: PackageManager,
  member: { dir: string; name: string | null },
  script: string,
) {
  const name = member.name ?? `./${member.dir}`;
  switch (pm) {
    case "pnpm":
      return `pnpm --filter ${name} run ${script}`;
    case "yarn":
      return member.name ? `yarn workspace ${member.name} run ${script}` : null;
    case "bun":
      return `bun run --filter ${name} ${script}`;
    default:
      return `npm run ${script} --workspace ${member.dir}`;
  }
}

/** Workspace globs as the repository declares them: pnpm-workspace.yaml, else package.json `workspaces`. */
async function workspaceGlobs(pkg: Pkg, tree: ProjectTree): Promise<string[]> {
  const yaml = await tree.read("pnpm-workspace.yaml");
  if (yaml !== null) {
    try {
      const doc = parseYaml(yaml) as { packages?: unknown } | null;
      if (Array.isArray(doc?.packages)) return doc.packages.filter((p): p is string => typeof p === "string");
    } catch {
      // A broken file declares nothing.
    }
  }
  const ws = pkg.workspaces;
  const list = Array.isArray(ws)
    ? ws
    : ws && typeof ws === "object" && Array.isArray((ws as Pkg).packages)
      ? ((ws as Pkg).packages as unknown[])
      : [];
  return list.filter((p): p is string => typeof p === "string");
}

/** Directories a glob names: literal paths, `dir/*` and `dir/**` (one level; deeper is rare). */
async function expandGlob(glob: string, tree: ProjectTree): Promise<string[]> {
  const clean = posix.normalize(glob.replace(/^\.\//, "")).replace(/\/+$/, "");
  if (clean.startsWith("..") || clean.startsWith("/")) return [];
  const star = clean.indexOf("*");
  if (star < 0) return [clean];
  const base = clean.slice(0, star).replace(/\/+$/, "");
  const rest = clean.slice(star);
  if (rest !== "*" && rest !== "**") return [];
  return (await tree.dirs(base || ".")).map((d) => (base ? `${base}/${d}` : d));
}

/** Folder names build tools write into; an entry point under one is looked up in the sources. */
const outputFolders = new Set([
  "dist",
  "build",
  "out",
  "lib",
  "esm",
  "cjs",
  "es",
  "umd",
  "distribution",
  "types",
]);
const builtExtension = /(\.d)?\.(c|m)?(j|t)sx?$/;
const sourceExtensions = [".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"];

/**
 * The source file an entry point stands for, project-relative, or null. `target` is relative to
 * the package directory `dir`. A source beside the output's path wins (`dist/index.js` →
 * `src/index.ts`); else the target itself when it is a visible file (a hand-written `bin/cli.js`).
 */
export async function sourceOfEntry(dir: string, target: string, tree: ProjectTree): Promise<string | null> {
  if (target.includes("*")) return null;
  const rel = posix.normalize(posix.join(dir || ".", target));
  if (rel.startsWith("..") || rel.startsWith("/")) return null;
  const inPkg = posix.relative(dir || ".", rel).split("/");
  let strip = 0;
  while (strip < inPkg.length - 1 && outputFolders.has(inPkg[strip]!)) strip++;
  const stem = inPkg.slice(strip).join("/").replace(builtExtension, "");
  if (strip > 0 || !(await tree.isFile(rel))) {
    for (const base of ["src", "source", "lib", ""]) {
      for (const ext of sourceExtensions) {
        const candidate = posix.join(dir || ".", base, `${stem}${ext}`);
        if (candidate !== rel && (await tree.isFile(candidate))) return candidate;
      }
    }
  }
  return (await tree.isFile(rel)) ? rel : null;
}

/** Every file path an `exports` map names, with its condition path, skipping `package.json`. */
function exportTargets(exp: unknown): string[] {
  if (typeof exp === "string") return exp.endsWith("package.json") ? [] : [exp];
  if (Array.isArray(exp)) return exp.flatMap(exportTargets);
  if (exp && typeof exp === "object") return Object.values(exp).flatMap(exportTargets);
  return [];
}

async function entryPointsOf(dir: string, pkg: Pkg, tree: ProjectTree): Promise<Map<string, string[]>> {
  const manifest = dir ? `${dir}/package.json` : "package.json";
  const named: Array<[string, string]> = [];
  const str = (v: unknown, label: string) => {
    if (typeof v === "string") named.push([v, label]);
  };
  str(pkg.main, "main");
  str(pkg.module, "module");
  if (typeof pkg.bin === "string") named.push([pkg.bin, "bin"]);
  else if (pkg.bin && typeof pkg.bin === "object") {
    for (const [cmd, file] of Object.entries(pkg.bin)) str(file, `bin '${cmd}'`);
  }
  for (const t of exportTargets(pkg.exports).slice(0, 50)) named.push([t, "exports"]);
  const found = new Map<string, string[]>();
  for (const [target, label] of named) {
    const source = await sourceOfEntry(dir, target, tree);
    if (source === null) continue;
    const labels = found.get(source) ?? [];
    if (!labels.includes(label)) labels.push(label);
    found.set(source, labels);
  }
  return new Map([...found].map(([src, labels]) => [src, [`${manifest} ${labels.join(", ")}`]]));
}

function scriptsOf(pkg: Pkg): Array<[string, string]> {
  const scripts = pkg.scripts && typeof pkg.scripts === "object" ? Object.entries(pkg.scripts) : [];
  return scripts.filter((s): s is [string, string] => typeof s[1] === "string");
}

/** What the root package.json (and its workspace packages) say; null when there is none. */
export async function nodeFacts(tree: ProjectTree): Promise<NodeFacts | null> {
  const pkg = parsePkg(await tree.read("package.json"));
  if (pkg === null) return null;
  const { pm, from } = await packageManagerOf(pkg, tree);
  const facts: NodeFacts = {
    packageManager: pm,
    packageManagerFrom: from,
    entryPoints: [],
    commands: [],
    workspaces: [],
  };
  const entries = await entryPointsOf("", pkg, tree);
  if (from !== null) facts.commands.push(`${pm} install (${from})`);
  for (const [name, script] of scriptsOf(pkg).slice(0, 25)) {
    facts.commands.push(`${scriptCommand(pm, name)} (package.json: ${script})`);
  }
  const globs = await workspaceGlobs(pkg, tree);
  const excluded = globs
    .filter((g) => g.startsWith("!"))
    .map((g) => picomatch(g.slice(1).replace(/^\.\//, "").replace(/\/+$/, "")));
  const members = new Set<string>();
  for (const glob of globs.filter((g) => !g.startsWith("!"))) {
    for (const dir of await expandGlob(glob, tree)) {
      // date-fns lists the root itself (`.`): it is already described above.
      if (dir !== "." && !excluded.some((m) => m(dir))) members.add(dir);
    }
  }
  let memberCommands = 0;
  for (const dir of [...members].sort()) {
    const member = parsePkg(await tree.read(`${dir}/package.json`));
    if (member === null) continue;
    facts.workspaces.push(dir);
    if (facts.workspaces.length > 40) continue;
    for (const [src, labels] of await entryPointsOf(dir, member, tree)) {
      entries.set(src, [...(entries.get(src) ?? []), ...labels]);
    }
    const name = typeof member.name === "string" ? member.name : null;
    for (const [script] of scriptsOf(member)) {
      if (script !== "test" || memberCommands >= 10) continue;
      const cmd = memberScriptCommand(pm, { dir, name }, script);
      if (cmd === null) continue;
      facts.commands.push(`${cmd} (${dir}/package.json)`);
      memberCommands++;
    }
  }
  facts.entryPoints = [...entries].map(([src, labels]) => `${src} (${labels.join("; ")})`);
  return facts;
}

/** Root files that hold TypeScript settings, named as build files when present. */
const configFiles = ["tsconfig.json"];

/**
 * package.json (its lockfile, pnpm-workspace.yaml) and the root tsconfig.json, in the order
 * onboarding has always shown them.
 */
export const npmOnboarding: OnboardingFacts = {
  manifests: ["package.json"],
  async facts(tree) {
    const node = await nodeFacts(tree);
    const buildFiles: string[] = [];
    if (node !== null) {
      buildFiles.push("package.json");
      if (node.packageManagerFrom && !node.packageManagerFrom.startsWith("package.json"))
        buildFiles.push(node.packageManagerFrom);
      if (await tree.isFile("pnpm-workspace.yaml")) buildFiles.push("pnpm-workspace.yaml");
    }
    for (const name of configFiles) if (await tree.isFile(name)) buildFiles.push(name);
    if (buildFiles.length === 0) return null;
    if (node === null) return { buildFiles, entryPoints: [], commands: [] };
    return {
      buildFiles,
      entryPoints: node.entryPoints,
      commands: node.commands,
      packageManager: `${node.packageManager}${node.packageManagerFrom ? ` (${node.packageManagerFrom})` : " (no lockfile)"}`,
      workspaces: node.workspaces,
    };
  },
};
