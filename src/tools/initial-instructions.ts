import { z } from "zod";
import { manual } from "../onboarding/manual.js";
import { defineTool, readOnly } from "./kit/define.js";

export const initialInstructionsTool = defineTool({
  name: "initial_instructions",
  title: "How to use scalpel",
  description:
    "The manual for these tools (name paths, shared parameters, complete: false); call it once per session.",
  input: {},
  output: { instructions: z.string() },
  annotations: readOnly,
  run: async () => ({ instructions: manual }),
  render: (r) => r.instructions,
});
