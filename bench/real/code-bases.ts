/**
 * The real repositories of the bench's real tier (issue 21): rxjs 7.8.2 `src/` and zod 3.25.76 from
 * the npm registry (bench/tokens/code-bases.ts: `npm pack`, cached by version), and date-fns, whose
 * npm package ships compiled JavaScript only: its sources come from a git checkout or git directory
 * the caller names with BENCH_DATE_FNS (the commit used is printed; absent, date-fns is skipped and
 * the bench says so). Three symbols each, named by their defining file.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { RXJS, workingCopy, ZOD } from "../tokens/code-bases.js";

export interface RealSymbol {
  relative_path: string;
  name_path: string;
}

export interface RealBase {
  label: string;
  /** Where the working copy is (made fresh under `parent`). */
  prepare(parent: string): Promise<string>;
  symbols: RealSymbol[];
}

const rxjs: RealBase = {
  label: RXJS.label,
  prepare: (parent) => workingCopy(RXJS, parent),
  symbols: [
    { relative_path: "src/internal/util/isFunction.ts", name_path: "isFunction" },
    { relative_path: "src/internal/observable/innerFrom.ts", name_path: "innerFrom" },
    { relative_path: "src/internal/Observable.ts", name_path: "Observable" },
  ],
};

const zod: RealBase = {
  label: ZOD.label,
  prepare: (parent) => workingCopy(ZOD, parent),
  symbols: [
    { relative_path: "src/v3/types.ts", name_path: "ZodType" },
    { relative_path: "src/v3/helpers/parseUtil.ts", name_path: "addIssueToContext" },
    { relative_path: "src/v4/core/util.ts", name_path: "defineLazy" },
  ],
};

/** The commit of a git checkout or git directory (`…/repo` as the search tool's fetch leaves it). */
function gitArgs(path: string): string[] {
  return existsSync(join(path, ".git")) ? ["-C", path] : ["--git-dir", path];
}

function dateFns(source: string): RealBase {
  const commit = execFileSync("git", [...gitArgs(source), "rev-parse", "HEAD"], { encoding: "utf8" }).trim();
  return {
    label: `date-fns @${commit.slice(0, 12)}`,
    async prepare(parent) {
      const dir = join(parent, "date-fns");
      await mkdir(dir, { recursive: true });
      // The tracked files at that commit, nothing a checkout's work tree added.
      const tar = execFileSync("git", [...gitArgs(source), "archive", commit], { maxBuffer: 1 << 30 });
      execFileSync("tar", ["-x", "-C", dir], { input: tar });
      return dir;
    },
    symbols: [
      { relative_path: "src/startOfWeek/index.ts", name_path: "startOfWeek" },
      { relative_path: "src/toDate/index.ts", name_path: "toDate" },
      { relative_path: "src/addDays/index.ts", name_path: "addDays" },
    ],
  };
}

/** The bases to run (BENCH_REAL: comma-separated labels' first words, default all) and what was skipped. */
export function realBases(): { bases: RealBase[]; skipped: string[] } {
  const wanted = (process.env.BENCH_REAL ?? "rxjs,zod,date-fns").split(",").map((s) => s.trim());
  const bases: RealBase[] = [];
  const skipped: string[] = [];
  if (wanted.includes("rxjs")) bases.push(rxjs);
  if (wanted.includes("zod")) bases.push(zod);
  if (wanted.includes("date-fns")) {
    const source = process.env.BENCH_DATE_FNS;
    if (source && existsSync(source)) bases.push(dateFns(source));
    else
      skipped.push("date-fns: set BENCH_DATE_FNS to a git checkout (or git directory) of date-fns/date-fns");
  }
  return { bases, skipped };
}
