import { z } from "zod";
import { memoryStoreOf } from "../memory/store.js";
import { defineTool, readOnly } from "./kit/define.js";

export const listMemoriesTool = defineTool({
  name: "list_memories",
  title: "List memories",
  description: "Lists the project's memories (notes from earlier sessions); if none, call onboarding.",
  input: {},
  output: {
    memories: z.array(
      z.object({ name: z.string(), bytes: z.number().int(), updated: z.string().describe("ISO 8601, UTC") }),
    ),
  },
  annotations: readOnly,
  run: async (_args, ctx) => ({ memories: await memoryStoreOf(ctx.project).list() }),
  render: (r) =>
    r.memories.length === 0
      ? "No memories yet. Call onboarding for what to explore and which memories to write."
      : r.memories.map((m) => `${m.name} (${m.bytes} bytes, ${m.updated})`).join("\n"),
});
