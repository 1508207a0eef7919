import { z } from "zod";
import { walkFiles } from "../files/ignore.js";
import { compileGlob, globMatches } from "../search/glob.js";
import { defineTool, readOnly } from "./kit/define.js";
import type { Answer } from "./kit/envelope.js";
import { maxAnswerChars } from "./kit/params.js";

const maxResults = 2000;

const output = {
  files: z.array(z.string()).describe("project-relative paths of matching files"),
  // `total` (set when the list was shortened) is the envelope's field.
};
type FindResult = Answer<typeof output>;

export const findFileTool = defineTool({
  name: "find_file",
  title: "Find files by name",
  description: "Finds files by glob on the base name ('*.test.ts'; with '/' on the path).",
  input: {
    file_mask: z.string().min(1),
    relative_path: z.string().default("."),
    max_answer_chars: maxAnswerChars,
  },
  output,
  annotations: readOnly,
  async run(args, ctx) {
    const project = ctx.project;
    // Names only (secret files are listed, never read), so a NamedPath is enough.
    const start = project.sandbox.resolveName(args.relative_path, { mustExist: true, kind: "dir" });
    // Matched in the regex worker, a batch of paths at a time (regex-glob.ts: a glob can backtrack).
    const mask = compileGlob(args.file_mask, "file_mask");
    const skipIgnored = !project.ignore.isIgnored(start.rel, true);
    const files: string[] = [];
    const result: FindResult = { files };
    let batch: string[] = [];
    /** False once the list is full. */
    const take = async (): Promise<boolean> => {
      const hits = await globMatches(mask, batch, ctx.signal);
      for (const [i, rel] of batch.entries()) {
        if (!hits[i]) continue;
        if (files.length >= maxResults) {
          result.truncated = true;
          result.hint = `Stopped after ${maxResults} files; use a more specific file_mask or relative_path.`;
          return false;
        }
        files.push(rel);
      }
      batch = [];
      return true;
    };
    for await (const entry of walkFiles(project.root, start.rel, project.ignore, {
      skipIgnored,
      signal: ctx.signal,
    })) {
      if (entry.isDir) continue;
      batch.push(entry.rel);
      if (batch.length >= 512 && !(await take())) return result;
    }
    await take();
    return result;
  },
  render(r) {
    const out = r.files.length === 0 ? ["No matching files."] : [...r.files];
    if (r.total !== undefined) out.push(`(${r.total} files in all)`);
    return out.join("\n");
  },
  shrink: [(r) => shorten(r, 500), (r) => shorten(r, 100), (r) => shorten(r, 0)],
  narrowHint: "Use a more specific file_mask, or a relative_path deeper in the tree.",
});

function shorten(r: FindResult, max: number): FindResult {
  return { ...r, files: r.files.slice(0, max), total: r.total ?? r.files.length };
}
