/**
 * The real code bases the token benchmark runs on: npm packages that ship their TypeScript sources,
 * at pinned versions, so that a fresh clone with only the npm registry reachable gets the same
 * files (and the same numbers) every time.
 *
 * `npm pack` tarballs are cached by name and version under the OS temp directory, so a rerun does
 * not download again; each run works on fresh copies (only `src/` and a tsconfig) in a temp
 * directory of its own, removed at the end.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface CodeBase {
  /** npm name@version */
  spec: string;
  /** Short label for the table. */
  label: string;
  /**
   * The tsconfig.json the working copy gets: rxjs ships its own (strict, paths into `src/`);
   * zod ships none at the package root, so it gets a strict NodeNext one over `src/`.
   */
  tsconfig: "from-package" | Record<string, unknown>;
  /** package.json of the working copy (module kind for NodeNext resolution). */
  packageJson?: Record<string, unknown>;
}

export const RXJS: CodeBase = { spec: "rxjs@7.8.2", label: "rxjs 7.8.2", tsconfig: "from-package" };

export const ZOD: CodeBase = {
  spec: "zod@3.25.76",
  label: "zod 3.25.76",
  tsconfig: {
    compilerOptions: {
      strict: true,
      target: "ES2022",
      module: "NodeNext",
      moduleResolution: "NodeNext",
      lib: ["ES2022", "DOM"],
      types: [],
      noEmit: true,
      skipLibCheck: true,
    },
    include: ["src"],
  },
  packageJson: { name: "zod-bench-copy", private: true, type: "module" },
};

/** Where downloaded and extracted packages are kept between runs. */
export const cacheRoot = join(tmpdir(), "scalpel-bench-tokens-cache");

function npm(args: string[], cwd: string): string {
  // npm is a .cmd on Windows; a shell resolves it there, and the arguments are fixed strings.
  return execFileSync("npm", args, {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    shell: process.platform === "win32",
  });
}

/** Extracted `package/` directory of `spec`, downloaded once and cached by version. */
export async function fetchPackage(spec: string): Promise<string> {
  const dir = join(cacheRoot, spec.replace(/[@/]/g, "_"));
  const pkg = join(dir, "package");
  if (existsSync(join(pkg, "package.json"))) return pkg;
  await mkdir(cacheRoot, { recursive: true });
  // Download into a scratch directory and move it into place whole, so an interrupted run never
  // leaves a half-extracted cache entry behind.
  const scratch = await mkdtemp(join(cacheRoot, "dl-"));
  try {
    const out = npm(["pack", spec, "--json", "--silent"], scratch);
    const parsed = JSON.parse(out) as Array<{ filename: string }>;
    const tgz = parsed[0]?.filename;
    if (tgz === undefined) throw new Error(`npm pack ${spec} printed no file name: ${out.slice(0, 300)}`);
    execFileSync("tar", ["-xzf", tgz], { cwd: scratch, stdio: "ignore" });
    await rm(dir, { recursive: true, force: true });
    await rename(scratch, dir);
  } catch (e) {
    await rm(scratch, { recursive: true, force: true });
    throw new Error(`could not fetch ${spec} from the npm registry: ${String(e)}`);
  }
  return pkg;
}

/** A fresh working copy of `base` (its `src/` plus a tsconfig) under `parent`. */
export async function workingCopy(base: CodeBase, parent: string): Promise<string> {
  const pkg = await fetchPackage(base.spec);
  const dir = join(parent, base.spec.split("@")[0]!);
  await mkdir(dir, { recursive: true });
  await cp(join(pkg, "src"), join(dir, "src"), { recursive: true });
  if (base.tsconfig === "from-package") await cp(join(pkg, "tsconfig.json"), join(dir, "tsconfig.json"));
  else await writeFile(join(dir, "tsconfig.json"), `${JSON.stringify(base.tsconfig, null, 2)}\n`);
  if (base.packageJson) await writeFile(join(dir, "package.json"), `${JSON.stringify(base.packageJson)}\n`);
  return dir;
}
