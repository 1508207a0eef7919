import { z } from "zod";
import { maxMemoryBytes, memoryStoreOf } from "../memory/store.js";
import { defineTool } from "./kit/define.js";
import { assertWritable, memoryName } from "./kit/memory-params.js";

export const writeMemoryTool = defineTool({
  name: "write_memory",
  title: "Write memory",
  description: `Saves a markdown note about the project for later sessions (same name: replaced). At most ${maxMemoryBytes / 1024} KiB.`,
  input: {
    name: memoryName,
    content: z.string(),
  },
  output: { name: z.string(), bytes: z.number().int() },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  async run(args, ctx) {
    const project = ctx.project;
    assertWritable(project);
    return memoryStoreOf(project).write(args.name, args.content);
  },
  render: (r) => `Wrote memory '${r.name}' (${r.bytes} bytes).`,
});
