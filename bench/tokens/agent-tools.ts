/**
 * The grep-and-read route: a model of Claude Code's own tools, as a careful agent uses them, so
 * that what they would return to the model can be counted character by character.
 *
 * What each tool returns here (and what was left out, always in the grep route's favour):
 * - Grep (ripgrep), output mode "content" with -n: one `path:line:text` line per matching line.
 *   Paths are project-relative; Claude Code prints absolute paths, which are longer.
 * - Grep, output mode "files_with_matches" / Glob: one path per line.
 * - Read: the file in `cat -n` style, one `<line number padded to 6>\t<text>` line per line, the whole
 *   file (up to 2000 lines) unless the agent passes offset/limit because it knows where to look.
 *   Claude Code appends a reminder paragraph to every Read result; it is not counted.
 * - Edit: refused unless the file was Read before (Claude Code's rule). Returns "The file … has
 *   been updated. Here's the result of running `cat -n` on a snippet of the edited file:" and the
 *   edited lines with 4 lines around them; with replace_all, a one-line confirmation.
 * - Bash: the command's printed output (`tsc --noEmit`: one line per error).
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";

export interface AgentCall {
  tool: "Grep" | "Glob" | "Read" | "Edit" | "Bash";
  /** What the agent asked, for the JSON results. */
  input: string;
  /** Characters the tool returned to the model. */
  chars: number;
}

export interface GrepHit {
  file: string;
  line: number;
  text: string;
}

const READ_DEFAULT_LIMIT = 2000;
const EDIT_SNIPPET_CONTEXT = 4;

function toPosix(p: string): string {
  return p.split(sep).join("/");
}

/** Numbered lines as Read prints them (`cat -n`), lines numbered from `first`. */
export function catN(lines: readonly string[], first: number): string {
  return lines.map((l, i) => `${String(first + i).padStart(6)}\t${l}`).join("\n");
}

export class AgentTools {
  readonly calls: AgentCall[] = [];
  private readonly read = new Set<string>();

  constructor(readonly root: string) {}

  /** Other ways the agent could have gone, with what they would have returned (for the JSON). */
  readonly notes: Record<string, number> = {};

  note(what: string, chars: number): void {
    this.notes[what] = chars;
  }

  /** What a Read of the whole file would return (not recorded as a call). */
  wholeReadChars(file: string): number {
    return catN(this.lines(file).slice(0, READ_DEFAULT_LIMIT), 1).length;
  }

  get totalChars(): number {
    return this.calls.reduce((n, c) => n + c.chars, 0);
  }

  private record(tool: AgentCall["tool"], input: string, output: string): string {
    this.calls.push({ tool, input, chars: output.length });
    return output;
  }

  /** `dir` itself when it is a file, else every `.ts` file under it (project-relative, sorted), as ripgrep's `--type ts` walks them. */
  files(dir: string): string[] {
    if (statSync(join(this.root, dir)).isFile()) return [dir];
    const out: string[] = [];
    const walk = (rel: string) => {
      for (const e of readdirSync(join(this.root, rel), { withFileTypes: true })) {
        const child = rel === "" ? e.name : `${rel}/${e.name}`;
        if (e.isDirectory()) {
          if (e.name !== "node_modules" && !e.name.startsWith(".")) walk(child);
        } else if (e.name.endsWith(".ts")) out.push(toPosix(child));
      }
    };
    walk(dir);
    return out.sort();
  }

  /** The file's lines as Read numbers them (a final newline ends the last line, it adds none). */
  private lines(file: string): string[] {
    const lines = readFileSync(join(this.root, file), "utf8").split(/\r?\n/);
    if (lines.at(-1) === "") lines.pop();
    return lines;
  }

  /** Grep in content mode with line numbers. */
  grep(pattern: RegExp, dir: string): GrepHit[] {
    const hits: GrepHit[] = [];
    for (const file of this.files(dir)) {
      this.lines(file).forEach((text, i) => {
        if (pattern.test(text)) hits.push({ file, line: i + 1, text });
      });
    }
    const output = hits.map((h) => `${h.file}:${h.line}:${h.text}`).join("\n");
    this.record("Grep", `${pattern.source} ${dir} (content, -n)`, output);
    return hits;
  }

  /** Glob (or Grep files_with_matches): the paths, one a line. */
  glob(dir: string): string[] {
    const files = this.files(dir);
    this.record("Glob", `${dir}/**/*.ts`, files.join("\n"));
    return files;
  }

  /** Read, whole file by default; returns the numbered lines shown. */
  readFile(file: string, offset = 1, limit = READ_DEFAULT_LIMIT): { first: number; last: number } {
    const all = this.lines(file);
    const shown = all.slice(offset - 1, offset - 1 + limit);
    this.read.add(file);
    this.record(
      "Read",
      `${file}${offset > 1 || limit < READ_DEFAULT_LIMIT ? ` ${offset}+${limit}` : ""}`,
      catN(shown, offset),
    );
    return { first: offset, last: offset - 1 + shown.length };
  }

  /**
   * Edit: replaces `oldText` (which must occur exactly once, or every time with `replaceAll`) and
   * writes the file. Throws, as Claude Code refuses, when the file was not Read first.
   */
  edit(file: string, oldText: string, newText: string, replaceAll = false): void {
    if (!this.read.has(file)) throw new Error(`Edit ${file}: the file was not read first`);
    const before = readFileSync(join(this.root, file), "utf8");
    const count = before.split(oldText).length - 1;
    if (count === 0 || (count > 1 && !replaceAll)) {
      throw new Error(`Edit ${file}: ${JSON.stringify(oldText)} occurs ${count} times`);
    }
    const after = replaceAll ? before.split(oldText).join(newText) : before.replace(oldText, () => newText);
    writeFileSync(join(this.root, file), after);
    if (replaceAll) {
      this.record(
        "Edit",
        `${file} (replace_all)`,
        `The file ${file} has been updated. All occurrences of '${oldText}' were successfully replaced with '${newText}'.`,
      );
      return;
    }
    const startLine = before.slice(0, before.indexOf(oldText)).split("\n").length;
    const endLine = startLine + newText.split("\n").length - 1;
    const lines = this.lines(file);
    const first = Math.max(1, startLine - EDIT_SNIPPET_CONTEXT);
    const last = Math.min(lines.length, endLine + EDIT_SNIPPET_CONTEXT);
    this.record(
      "Edit",
      file,
      `The file ${file} has been updated. Here's the result of running \`cat -n\` on a snippet of the edited file:\n${catN(lines.slice(first - 1, last), first)}`,
    );
  }

  /** Bash `npx tsc --noEmit` in the project root; returns the printed output. */
  tscNoEmit(tscPath: string): string {
    let output: string;
    try {
      output = execFileSync(process.execPath, [tscPath, "--noEmit", "--pretty", "false", "-p", "."], {
        cwd: this.root,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      });
    } catch (e) {
      // tsc exits non-zero when it prints errors: that output is the answer.
      output = String((e as { stdout?: string }).stdout ?? "");
    }
    this.record("Bash", "npx tsc --noEmit", output.trimEnd());
    return output;
  }
}

/** `file(line,col): error TSxxxx: …` lines of tsc's output as sites. */
export function tscErrorSites(output: string, root: string): Array<{ file: string; line: number }> {
  const out: Array<{ file: string; line: number }> = [];
  for (const m of output.matchAll(/^(.+?)\((\d+),\d+\): error TS\d+/gm)) {
    out.push({ file: toPosix(relative(root, join(root, m[1]!))), line: Number(m[2]) });
  }
  return out;
}
