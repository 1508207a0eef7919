/**
 * The files of a tsconfig, read from its own `files`/`include`/`exclude`, for a server that cannot
 * list them (TypeScript 7's native server has `custom/projectInfo` without a file list). Used only
 * to decide which files lie outside the defining project and must be opened before references are
 * asked (src/references/scope.ts), so every doubt leaves a file out of the list: a file left
 * out costs an open, a file wrongly listed could cost a missed reference. An `extends` that is not
 * a relative path, or a config that cannot be read, lists nothing.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import picomatch from "picomatch";

interface Layout {
  files?: string[];
  include?: string[];
  exclude?: string[];
  allowJs?: boolean;
}

/** Bounds the walk: past it the rest is left out (opened if it mentions the name, never missed). */
const maxFiles = 100_000;
const skippedDirs = new Set(["node_modules", ".git", "bower_components", "jspm_packages"]);

function parseJsonc(text: string): unknown {
  const code = text
    .replace(/("(?:[^"\\\n]|\\.)*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (_m, str) => str ?? "")
    .replace(/,(\s*[}\]])/g, "$1");
  return JSON.parse(code);
}

const strings = (v: unknown): string[] | undefined =>
  Array.isArray(v) && v.every((s) => typeof s === "string") ? v : undefined;

/** The layout with `extends` followed (relative paths only, up to 5 levels); undefined: unknown. */
function layoutOf(config: string, depth = 0): { layout: Layout; base: Record<string, string> } | undefined {
  let raw: Record<string, unknown>;
  try {
    raw = parseJsonc(readFileSync(config, "utf8")) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const own: Layout = {};
  const dir = dirname(config);
  // Patterns are relative to the config that declares them.
  const base: Record<string, string> = {};
  for (const key of ["files", "include", "exclude"] as const) {
    const v = strings(raw[key]);
    if (v) {
      own[key] = v;
      base[key] = dir;
    }
  }
  const options = raw.compilerOptions as Record<string, unknown> | undefined;
  if (typeof options?.allowJs === "boolean") own.allowJs = options.allowJs;
  const ext = raw.extends;
  if (ext === undefined) return { layout: own, base };
  const parents = typeof ext === "string" ? [ext] : strings(ext);
  if (!parents || depth >= 5) return undefined;
  let merged: { layout: Layout; base: Record<string, string> } = { layout: {}, base: {} };
  for (const p of parents) {
    if (!p.startsWith(".")) return undefined;
    const full = resolve(dir, p.endsWith(".json") ? p : `${p}.json`);
    const parent = layoutOf(full, depth + 1);
    if (!parent) return undefined;
    merged = { layout: { ...merged.layout, ...parent.layout }, base: { ...merged.base, ...parent.base } };
  }
  return { layout: { ...merged.layout, ...own }, base: { ...merged.base, ...base } };
}

/** `src` (a folder) means `src/**\/*`, as tsc reads it. */
const asGlob = (raw: string, tail: string) => {
  const p = raw.replace(/^\.\//, "").replace(/\/$/, "");
  return /[*?]/.test(p) || /\.[a-z]+$/i.test(p) ? p : `${p}/${tail}`;
};

function walk(dir: string, out: string[]): void {
  let entries: import("node:fs").Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    if (out.length >= maxFiles) return;
    if (e.isDirectory()) {
      if (!skippedDirs.has(e.name) && !e.name.startsWith(".")) walk(join(dir, e.name), out);
    } else if (e.isFile()) out.push(join(dir, e.name));
  }
}

/** Absolute paths of the files the tsconfig at `config` compiles, or [] when that cannot be told. */
export function tsconfigFiles(config: string): string[] {
  const found = layoutOf(config);
  if (!found) return [];
  const { layout, base } = found;
  const exts = layout.allowJs ? /\.(?:ts|tsx|mts|cts|js|jsx|mjs|cjs)$/ : /\.(?:ts|tsx|mts|cts)$/;
  const out = new Set((layout.files ?? []).map((f) => resolve(base.files ?? dirname(config), f)));
  const include = layout.include ?? (layout.files ? [] : ["**/*"]);
  if (include.length === 0) return [...out];
  const root = base.include ?? dirname(config);
  const included = picomatch(include.map((p) => asGlob(p, "**/*")));
  const excludeBase = base.exclude ?? dirname(config);
  const excluded = picomatch((layout.exclude ?? []).map((p) => asGlob(p, "**")));
  const all: string[] = [];
  walk(root, all);
  for (const abs of all) {
    if (!exts.test(abs)) continue;
    const rel = relative(root, abs).split("\\").join("/");
    const relEx = relative(excludeBase, abs).split("\\").join("/");
    if (included(rel) && !(layout.exclude && excluded(relEx))) out.add(abs);
  }
  return [...out];
}
