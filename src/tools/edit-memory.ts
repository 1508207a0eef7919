import { z } from "zod";
import { AppError } from "../core/errors.js";
import { memoryStoreOf } from "../memory/store.js";
import { findMatches } from "../search/needle-matches.js";
import { defineTool, writes } from "./kit/define.js";
import { assertWritable, memoryName } from "./kit/memory-params.js";
import { replaceParams } from "./kit/params.js";

export const editMemoryTool = defineTool({
  name: "edit_memory",
  title: "Edit memory",
  description:
    "Replaces text in a memory (literal, or regex with mode 'regex'); write_memory replaces all of it.",
  input: {
    name: memoryName,
    ...replaceParams,
  },
  output: { name: z.string(), bytes: z.number().int() },
  annotations: writes,
  async run(args, ctx) {
    const project = ctx.project;
    assertWritable(project);
    const store = memoryStoreOf(project);
    // The find/replace runs on the text read under the file's lock: two parallel edits of one
    // memory both land, each on the other's result.
    return store.update(args.name, async (content) => {
      const found = await findMatches(content, args.needle, args.replacement, args.mode, {
        signal: ctx.signal,
        where: `memory '${args.name}'`,
      });
      if (found.length === 0) {
        throw new AppError(
          "no_match",
          `The needle was not found in memory '${args.name}'. Read it with read_memory and copy the text exactly${args.mode === "literal" ? ", or use mode: 'regex'" : ""}.`,
        );
      }
      if (found.length > 1 && !args.allow_multiple) {
        throw new AppError(
          "multiple_matches",
          `The needle matches ${found.length} times in memory '${args.name}'. Include more surrounding text to make it unique, or pass allow_multiple: true to replace every match.`,
          { count: found.length },
        );
      }
      // Splice from the end so earlier offsets stay valid.
      let next = content;
      for (const m of [...found].sort((a, b) => b.start - a.start)) {
        next = next.slice(0, m.start) + m.newText + next.slice(m.end);
      }
      return next;
    });
  },
  render: (r) => `Edited memory '${r.name}' (${r.bytes} bytes).`,
});
