import { z } from "zod";
import { onboardingInstructions } from "../onboarding/instructions.js";
import { defineTool, readOnly } from "./kit/define.js";

export const onboardingTool = defineTool({
  name: "onboarding",
  title: "Onboarding instructions",
  description: "What to explore and which memories to write; call it when activate_project recommends it.",
  input: {},
  output: { instructions: z.string() },
  annotations: readOnly,
  async run(_args, ctx) {
    return {
      instructions: await onboardingInstructions(ctx.project, await ctx.workspace.languagesDetected()),
    };
  },
  render: (r) => r.instructions,
});
