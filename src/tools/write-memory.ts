import { z } from "zod";
import { maxMemoryBytes, memoryStoreOf } from "../memory/store.js";
import { defineTool } from "./kit/define.js";
import { assertWritable, memoryName } from "./kit/memory-params.js";

export const writeMemoryTool = defineTool({
  name: "write_memory",
  title: "Write memory",
  description: `Saves a markdown note that later sessions can read (one file per memory in the project's memory folder). Writing an existing name replaces it; use edit_memory to change part of it. Use it for what you learned about the project (overview, architecture, commands, conventions, gotchas), not for code. Names may use '/' for topic folders, e.g. 'topics/build'. At most ${maxMemoryBytes / 1024} KiB.`,
  input: {
    name: memoryName,
    content: z.string().describe("The memory's full markdown content"),
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
