import { z } from "zod";
import { onboardingInstructions } from "../onboarding/instructions.js";
import { defineTool, readOnly } from "./kit/define.js";

export const onboardingTool = defineTool({
  name: "onboarding",
  title: "Onboarding instructions",
  description:
    "Returns concrete instructions for getting to know this project — what to explore with which tools and which memories to write — built from what scalpel sees (languages, layout, entry points, build and test commands). Call it when activate_project says onboarding is recommended.",
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
