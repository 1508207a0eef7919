import { z } from "zod";
import { handedOver, memoryStoreOf } from "../memory/store.js";
import { defineTool, readOnly } from "./kit/define.js";
import { memoryName } from "./kit/memory-params.js";

export const readMemoryTool = defineTool({
  name: "read_memory",
  title: "Read memory",
  description: "Reads one memory. Read the relevant ones before exploring the code.",
  input: { name: memoryName },
  output: {
    name: z.string(),
    content: z.string(),
    untrusted: z
      .boolean()
      .optional()
      .describe("the project is not trusted: content is quoted repository text"),
  },
  annotations: readOnly,
  narrowHint:
    "The memory is longer than one answer and was cut; read the rest of its file (in the memory folder, .scalpel/memories/ by default) with read_file and start_line, and consider splitting it into smaller memories.",
  run: async (args, ctx) =>
    handedOver(await memoryStoreOf(ctx.project).read(args.name), ctx.project.trust.trusted),
  render: (r) => r.content,
});
