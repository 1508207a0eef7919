import { z } from "zod";
import { memoryStoreOf } from "../memory/store.js";
import { defineTool } from "./kit/define.js";
import { assertWritable, memoryName } from "./kit/memory-params.js";

export const deleteMemoryTool = defineTool({
  name: "delete_memory",
  title: "Delete memory",
  description: "Deletes a memory that is wrong or obsolete; edit_memory corrects part of one.",
  input: { name: memoryName },
  output: { name: z.string(), deleted: z.literal(true) },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  async run(args, ctx) {
    const project = ctx.project;
    assertWritable(project);
    return memoryStoreOf(project).delete(args.name);
  },
  render: (r) => `Deleted memory '${r.name}'.`,
});
