/** MCP prompts: ready-made task descriptions that walk an agent through scalpel's tools. */
import { z } from "zod";
import { onboardingInstructions } from "../onboarding/instructions.js";
import { definePrompt } from "./types.js";

export const onboardingPrompt = definePrompt({
  name: "onboarding",
  title: "Onboard to this project",
  description:
    "Explore the active project with scalpel's tools and write the memories (overview, architecture, commands, conventions, gotchas) that later sessions start from.",
  args: {},
  async build(workspace) {
    const project = workspace.project;
    const intro =
      "Get to know this project and record what you learn as memories, so that later sessions do not have to explore it again.";
    if (!project) {
      return `${intro}\n\nNo project is active yet: call activate_project with the project's root path, then call the onboarding tool and follow its instructions.`;
    }
    return `${intro}\n\n${await onboardingInstructions(project, await workspace.languagesDetected())}`;
  },
});

export const refactorPrompt = definePrompt({
  name: "refactor",
  title: "Refactor a symbol safely",
  description:
    "A type-precise refactoring of one symbol: find its references, preview the edit as a dry run, apply it, then check diagnostics of every touched file.",
  args: {
    symbol: z.string().describe("Name path of the symbol, e.g. 'Money/multiplyByRate'"),
    file: z.string().describe("File that defines it, relative to the project root"),
    goal: z.string().optional().describe("What the refactoring should achieve, e.g. 'rename to scaleBy'"),
  },
  async build(workspace, args) {
    const readOnly = workspace.project?.readOnly === true;
    const target = `name_path: '${args.symbol}', relative_path: '${args.file}'`;
    return [
      `Refactor the symbol '${args.symbol}' defined in '${args.file}'.`,
      `Goal: ${args.goal?.trim() || "(not given: ask what the refactoring should achieve before editing)"}`,
      "",
      "Work through scalpel's tools, in this order:",
      `1. Locate: find_symbol with name_path_pattern: '${args.symbol}', relative_path: '${args.file}', include_body: true. It must resolve to exactly one symbol; if the answer lists candidates, pick one with a longer name path or an index like 'name[1]'.`,
      `2. References: find_referencing_symbols with ${target}. These are the type-precise usages (not same-named symbols of other types). If complete is false, wait and call it again before relying on the list.`,
      "3. Choose the edit: rename_symbol for a rename (all files at once); replace_symbol_body for a new signature or body (the whole declaration); insert_before_symbol / insert_after_symbol for new code next to it; safe_delete_symbol to remove it once it is unused.",
      `4. Dry run: call the edit with ${target} and dry_run: true. Read the unified diff and check that it covers every reference from step 2 and nothing else.`,
      "5. Apply: the same call without dry_run. Keep the edit_id from the result.",
      "6. Diagnostics: look at diagnostics_delta in the result, then call get_diagnostics_for_file on each changed file and on the files of the references from step 2. Fix new errors (callers of a changed signature: update each with replace_content or replace_symbol_body, again with a dry run first).",
      "7. If the change turns out wrong, undo_edit with the edit_id restores the files byte for byte.",
      "",
      "Lines are 1-based; paths are relative to the project root.",
      ...(readOnly
        ? ["", "Note: the active project is read-only; only steps 1, 2 and a plan are possible."]
        : []),
    ].join("\n");
  },
});
