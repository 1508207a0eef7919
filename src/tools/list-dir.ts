import { z } from "zod";
import { plural } from "../core/words.js";
import { walkFiles } from "../files/ignore.js";
import { defineTool, readOnly } from "./kit/define.js";
import type { Answer } from "./kit/envelope.js";
import { maxAnswerChars } from "./kit/params.js";

/** A recursive listing stops here; nobody reads more than this. */
const maxEntries = 20_000;

const output = {
  dirs: z.array(z.string()).describe("project-relative directory paths"),
  files: z.array(z.string()).describe("project-relative file paths"),
  total_dirs: z.number().int().optional().describe("set when the lists were shortened"),
  total_files: z.number().int().optional().describe("set when the lists were shortened"),
};
type ListResult = Answer<typeof output>;

export const listDirTool = defineTool({
  name: "list_dir",
  title: "List a directory",
  description: "Lists a folder's directories and files (ignored ones too with skip_ignored: false).",
  input: {
    relative_path: z.string().default("."),
    recursive: z.boolean().default(false),
    skip_ignored: z.boolean().default(true),
    max_answer_chars: maxAnswerChars,
  },
  output,
  annotations: readOnly,
  async run(args, ctx) {
    const project = ctx.project;
    // Names only (secret files are listed, never read), so a NamedPath is enough.
    const start = project.sandbox.resolveName(args.relative_path, { mustExist: true, kind: "dir" });
    // Asking for an ignored directory by name is asking to see inside it.
    const skipIgnored = args.skip_ignored && !project.ignore.isIgnored(start.rel, true);
    const dirs: string[] = [];
    const files: string[] = [];
    let capped = false;
    const walk = walkFiles(project.root, start.rel, project.ignore, {
      skipIgnored,
      signal: ctx.signal,
      ...(args.recursive ? {} : { maxDepth: 1 }),
    });
    for await (const entry of walk) {
      if (dirs.length + files.length >= maxEntries) {
        capped = true;
        break;
      }
      (entry.isDir ? dirs : files).push(entry.rel);
    }
    const result: ListResult = { dirs, files };
    if (capped) {
      result.truncated = true;
      result.hint = `Stopped after ${maxEntries} entries; list a subdirectory instead.`;
    }
    return result;
  },
  render(r) {
    const out: string[] = [];
    for (const d of r.dirs) out.push(`${d}/`);
    out.push(...r.files);
    if (out.length === 0) out.push("(empty)");
    if (r.total_dirs !== undefined || r.total_files !== undefined) {
      out.push(
        `(${plural(r.total_dirs ?? r.dirs.length, "dir")} and ${plural(r.total_files ?? r.files.length, "file")} in all)`,
      );
    }
    return out.join("\n");
  },
  shrink: [
    (r) => shorten(r, 1000, 1000),
    (r) => shorten(r, 300, 100),
    (r) => shorten(r, 100, 0),
    (r) => shorten(r, 0, 0),
  ],
  narrowHint: "List a subdirectory, use recursive: false, or use find_file with a name pattern.",
});

function shorten(r: ListResult, maxDirs: number, maxFiles: number): ListResult {
  return {
    ...r,
    dirs: r.dirs.slice(0, maxDirs),
    files: r.files.slice(0, maxFiles),
    total_dirs: r.total_dirs ?? r.dirs.length,
    total_files: r.total_files ?? r.files.length,
  };
}
