/**
 * tsconfig files read by TypeScript's own config API (`readConfigFile`,
 * `parseJsonConfigFileContent`): JSONC, `extends` chains (relative, package and array forms),
 * `files`/`include`/`exclude` globs and paths relative to the config that declares them, all as
 * tsc reads them — the regular expressions and hand-rolled glob walk this replaces got
 * `extends`, `${configDir}` and tsc's implicit excludes wrong or not at all.
 *
 * The API's own host (`ts.sys`) reads anything on the disk. This one answers only for paths whose
 * real location is inside the project root: an `extends` that leaves the root (`../base.json`, a
 * package resolved above it, a symlink pointing out) reads as a missing file, and directories are
 * listed without following symlinks, so nothing outside the root is read.
 */
import { type Dirent, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { type ParseError, parse as parseJsonc } from "jsonc-parser";
import type * as Ts from "typescript";
import { loadTypescript } from "./typescript-code-cache.js";

type TsApi = typeof Ts;

let api: TsApi | undefined;

/**
 * TypeScript's compiler, loaded on first use: it is one ~9 MB module (0.4–0.7 s to load on the
 * 2-core CI machine; 45–55 ms with the build's code cache: typescript-code-cache.ts), which
 * scalpel's start-up must not pay. Loaded synchronously, not by `import()`: the ignore rules that
 * ask for output folders answer synchronously.
 */
export function typescriptApi(): TsApi {
  api ??= loadTypescript<TsApi>();
  return api;
}

/** Bounds a listing: past it the rest is left out (for scope.ts, opened if it mentions the name). */
const maxListed = 100_000;

/**
 * Errors that leave a config's file list unknown: a syntax error (TS1xxx), a file that cannot be
 * read or was not found (an `extends` outside the root, a package not installed), an `extends`
 * cycle, a config whose root is no object. Errors about compiler options say nothing about files.
 */
const layoutErrors = new Set([5083, 6053, 18000, 5092]);
const unknownLayout = (d: Ts.Diagnostic) =>
  d.category === typescriptApi().DiagnosticCategory.Error &&
  ((d.code >= 1000 && d.code < 2000) || layoutErrors.has(d.code));

function realInside(realRoot: string, path: string): string | undefined {
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    return undefined;
  }
  const rel = relative(realRoot, real);
  return rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel) ? real : undefined;
}

interface ConfinedHost extends Ts.ParseConfigHost {
  /** The listing stopped at `maxListed` files. */
  cut: boolean;
}

/** A ParseConfigHost that reads and lists nothing whose real path is outside `root`. */
function confinedHost(ts: TsApi, root: string, list: boolean): ConfinedHost {
  const realRoot = realpathSync(root);
  let listed = 0;
  const host: ConfinedHost = {
    cut: false,
    useCaseSensitiveFileNames: ts.sys.useCaseSensitiveFileNames,
    fileExists: (path) => isFileInside(realRoot, path) !== undefined,
    readFile(path) {
      const real = realInside(realRoot, path);
      if (real === undefined) return undefined;
      try {
        return readFileSync(real, "utf8");
      } catch {
        return undefined;
      }
    },
    readDirectory(dir, extensions, excludes, includes, depth) {
      if (!list) return [];
      const entries = (path: string): { files: string[]; directories: string[] } => {
        const files: string[] = [];
        const directories: string[] = [];
        const real = realInside(realRoot, path);
        if (real === undefined || host.cut) return { files, directories };
        let dirents: Dirent[];
        try {
          dirents = readdirSync(real, { withFileTypes: true });
        } catch {
          return { files, directories };
        }
        // Symlinks are left out, files and folders alike: what they point at may lie outside the
        // root, and a file left out costs an open, never a missed reference.
        for (const e of dirents) {
          if (e.isDirectory()) directories.push(e.name);
          else if (e.isFile()) {
            if (++listed > maxListed) {
              host.cut = true;
              break;
            }
            files.push(e.name);
          }
        }
        return { files, directories };
      };
      // tsc's own glob matcher (implicit excludes, `*` and `**` semantics, extension priorities),
      // fed with the confined listing above. Not in typescript.d.ts; the unit test pins it.
      const matchFiles = (ts as unknown as { matchFiles?: MatchFiles }).matchFiles;
      if (typeof matchFiles !== "function") return [];
      return matchFiles(
        dir,
        extensions,
        excludes,
        includes,
        ts.sys.useCaseSensitiveFileNames,
        dir,
        depth,
        entries,
        (p) => realInside(realRoot, p) ?? p,
      );
    },
  };
  return host;
}

type MatchFiles = (
  path: string,
  extensions: readonly string[] | undefined,
  excludes: readonly string[] | undefined,
  includes: readonly string[] | undefined,
  useCaseSensitiveFileNames: boolean,
  currentDirectory: string,
  depth: number | undefined,
  getFileSystemEntries: (path: string) => { files: readonly string[]; directories: readonly string[] },
  realpath: (path: string) => string,
) => string[];

/** The parsed config at `config` (absolute), read inside `root` only, and every error met. */
function parse(config: string, root: string, list: boolean) {
  const ts = typescriptApi();
  const host = confinedHost(ts, root, list);
  // Unreadable (or outside the root): `error` is a 5083 "cannot read file" and `config` is {}.
  const { config: json, error } = ts.readConfigFile(config, (p) => host.readFile(p));
  const parsed = ts.parseJsonConfigFileContent(json, host, dirname(config), undefined, config);
  const errors = error ? [error, ...parsed.errors] : parsed.errors;
  return { parsed, errors };
}

/**
 * Absolute paths of the files the tsconfig at `config` compiles, as tsc would list them, or []
 * when that cannot be told (the config or one it extends is unreadable, outside `root`, or not
 * valid): the list only decides which files need no opening before references are asked
 * (src/references/scope.ts), so every doubt leaves files out.
 */
export function tsconfigFiles(config: string, root: string): string[] {
  const read = parse(config, root, true);
  if (read.errors.some(unknownLayout)) return [];
  return read.parsed.fileNames.map((f) => resolve(f));
}

/**
 * The folders the tsconfig at `config` compiles into (`outDir`, `declarationDir`, an inherited one
 * resolved against the config that declares it), relative to `config`'s folder. A commented-out
 * `// "outDir"` names nothing. `text` is the config's text as the caller read it: one that names
 * neither key nor an `extends` cannot name an output, and costs no compiler load.
 */
export function tsconfigOutDirs(text: string, config: string, root: string): string[] {
  return outDirsWithoutCompiler(text, config, root) ?? compilerOutDirs(config, root);
}

/**
 * The output folders when the config's text, and the configs it extends by relative path, tell
 * them without the compiler ([] for a config naming neither key nor an `extends`); undefined: only
 * the compiler can tell. Loading the compiler in-process (0.5–1.5 s on a loaded 2-core machine,
 * blocking) for date-fns' `"outDir": "../.ts"` was most of the time between a cold start and the
 * first references call; read apart (tsconfig-apart.ts) it costs a process start (0.2–0.4 s, also
 * blocking the walk that asks), which each package's `"extends": "../../tsconfig.base.json"` of a
 * monorepo would pay.
 */
export function outDirsWithoutCompiler(text: string, config: string, root: string): string[] | undefined {
  if (!/outDir|declarationDir|extends/.test(text)) return [];
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch {
    return undefined;
  }
  const found = chainOutputs(text, config, realRoot, new Set());
  if (!found) return undefined;
  return outputKeys
    .map((key) => found[key])
    .filter((d): d is string => d !== undefined)
    .map((d) => relative(dirname(config), d).split(sep).join("/") || ".");
}

const outputKeys = ["outDir", "declarationDir"] as const;
type Outputs = Partial<Record<(typeof outputKeys)[number], string>>;

/** How many configs deep an `extends` chain is followed without the compiler. */
const maxChain = 16;

/**
 * The outputs a config declares or inherits (absolute, each resolved against the folder of the
 * config that declares it; later `extends` entries, then the config's own, win), following only
 * `./` and `../` extends whose files lie inside the root; undefined for anything else (a package,
 * `${configDir}`, an absolute path, a cycle, text that is not JSON with comments).
 */
function chainOutputs(
  text: string,
  config: string,
  realRoot: string,
  seen: Set<string>,
): Outputs | undefined {
  const json = jsoncObject(text);
  const options = json?.compilerOptions ?? {};
  if (!json || typeof options !== "object" || options === null || Array.isArray(options)) return undefined;
  const ext = json.extends;
  const bases = ext === undefined ? [] : typeof ext === "string" ? [ext] : ext;
  if (!Array.isArray(bases) || seen.size >= maxChain) return undefined;
  let out: Outputs = {};
  for (const base of bases) {
    if (typeof base !== "string" || !(base.startsWith("./") || base.startsWith("../"))) return undefined;
    // As tsc: the path as written, else with `.json` added.
    let path = resolve(dirname(config), base);
    if (!isFileInside(realRoot, path) && !path.endsWith(".json")) path = `${path}.json`;
    const real = isFileInside(realRoot, path);
    if (!real || seen.has(real)) return undefined;
    let baseText: string;
    try {
      baseText = readFileSync(real, "utf8");
    } catch {
      return undefined;
    }
    const inherited = chainOutputs(baseText, path, realRoot, new Set([...seen, real]));
    if (!inherited) return undefined;
    out = { ...out, ...inherited };
  }
  for (const key of outputKeys) {
    const d: unknown = (options as Record<string, unknown>)[key];
    if (d === undefined) continue;
    if (typeof d !== "string" || d.includes("${") || isAbsolute(d) || d.includes("\\")) return undefined;
    out[key] = resolve(dirname(config), d);
  }
  return out;
}

/** The text as a JSON object (comments and trailing commas allowed), or undefined. */
function jsoncObject(text: string): Record<string, unknown> | undefined {
  const errors: ParseError[] = [];
  const json: unknown = parseJsonc(text, errors, { allowTrailingComma: true });
  if (errors.length > 0 || typeof json !== "object" || json === null || Array.isArray(json)) return undefined;
  return json as Record<string, unknown>;
}

/** The file's real path when it is a file inside the root, else undefined. */
function isFileInside(realRoot: string, path: string): string | undefined {
  const real = realInside(realRoot, path);
  try {
    return real !== undefined && statSync(real).isFile() ? real : undefined;
  } catch {
    return undefined;
  }
}

/** The output folders as the compiler reads the config at `config` (inside `root` only). */
export function compilerOutDirs(config: string, root: string): string[] {
  const { outDir, declarationDir } = parse(config, root, false).parsed.options;
  return [outDir, declarationDir]
    .filter((d): d is string => typeof d === "string")
    .map((d) => relative(dirname(config), d).split("\\").join("/") || ".");
}
