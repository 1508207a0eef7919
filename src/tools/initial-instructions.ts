import { z } from "zod";
import { manual } from "../onboarding/manual.js";
import { defineTool, readOnly } from "./kit/define.js";

export const initialInstructionsTool = defineTool({
  name: "initial_instructions",
  title: "How to use scalpel",
  description:
    "Returns the short manual for using scalpel's tools well: name paths, 1-based lines, dry runs, when to use references instead of text search, and how to read complete: false. Call it once at the start of a session.",
  input: {},
  output: { instructions: z.string() },
  annotations: readOnly,
  run: async () => ({ instructions: manual }),
  render: (r) => r.instructions,
});
