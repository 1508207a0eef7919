/** The onboarding text an agent gets: the facts, an exploration plan, and the memories to write. */
import { memoryStoreOf } from "../memory/store.js";
import type { Project } from "../project/project.js";
import { manifestReaders, projectFacts, sourceFolders } from "./facts.js";

/** The memories onboarding asks for, with what each should hold. */
export const onboardingMemories: ReadonlyArray<readonly [string, string]> = [
  ["overview", "what the project does, its main parts and entry points"],
  [
    "architecture",
    "modules and how they depend on each other; where the core logic lives; data flow of one typical operation",
  ],
  ["commands", "exact commands to install, build, test (all and one file), lint, format and run"],
  ["conventions", "code style, naming, error handling, logging, how tests are written and where they live"],
  [
    "gotchas",
    "anything surprising you had to find out the hard way (generated files, slow steps, fragile areas)",
  ],
];

/** The onboarding text: facts, an exploration plan, and the memories to write. */
export async function onboardingInstructions(
  project: Project,
  languages: readonly string[],
): Promise<string> {
  const facts = await projectFacts(project, languages);
  const existing = await memoryStoreOf(project).names();
  const seen: string[] = [];
  const add = (label: string, items: readonly string[], limit = 40) => {
    if (items.length === 0) return;
    const shown =
      items.slice(0, limit).join(", ") + (items.length > limit ? `, … (${items.length - limit} more)` : "");
    seen.push(`- ${label}: ${shown}`);
  };
  add("Languages with a language server", facts.languages);
  add("Top level", facts.topLevel);
  add("Build files", facts.manifests);
  if (facts.packageManager) seen.push(`- Package manager: ${facts.packageManager}`);
  add("Workspace packages", facts.workspaces);
  add("Entry points", facts.entryPoints);
  for (const note of facts.notes) seen.push(`- ${note}`);
  add("CI configuration", facts.ci);
  if (facts.readme) seen.push(`- README: ${facts.readme}`);

  const sourceDirs = facts.topLevel.filter((e) => sourceFolders.has(e.slice(0, -1)) && e.endsWith("/"));
  const overviewTargets =
    sourceDirs.length > 0
      ? sourceDirs.map((d) => `'${d.slice(0, -1)}'`).join(", ")
      : "the main source folders";
  const missing = onboardingMemories.filter(([name]) => !existing.includes(name));

  const lines = [
    `# Onboarding '${project.name}'`,
    "",
    "What scalpel sees:",
    ...(seen.length > 0 ? seen : ["- An empty or unrecognised project: start with list_dir."]),
    "",
    "Commands found (verify before writing them down; run nothing destructive):",
    ...(facts.commands.length > 0
      ? facts.commands.map((c) => `- ${c}`)
      : [
          `- none in ${[...manifestReaders.flatMap((r) => r.manifests), "a Makefile"].join(", ")}: look at the README and CI configuration.`,
        ]),
    "",
    "Explore, in this order:",
    `1. ${facts.readme ? `read_file '${facts.readme}'` : "list_dir on the root"}, then list_dir on ${overviewTargets}.`,
    facts.overviewFile
      ? `2. get_symbols_overview on '${facts.overviewFile}' (a folder's overview lists the top-level symbols of every file in it; a file's shows them with their members at depth 1), then on the central files it leads to.`
      : "2. get_symbols_overview on the central folders and files you found (a folder's overview lists the top-level symbols of every file in it).",
    `3. find_symbol with include_body: true on the entry points${facts.entryPoints.length > 0 ? " listed above" : ""}.`,
    "4. find_referencing_symbols on two or three central classes or functions to learn how the parts connect.",
    `5. Confirm how to build, test and lint${facts.ci.length > 0 ? ` (the CI configuration ${facts.ci[0]} shows what really runs)` : ""}.`,
    "",
    existing.length > 0
      ? `Memories already written: ${existing.join(", ")}. Read them first and update them with edit_memory rather than rewriting.`
      : "No memories exist yet.",
    missing.length > 0
      ? "Then write these memories with write_memory (short, factual markdown; name files by relative path and symbols by name path):"
      : "All the standard memories exist; keep them accurate when you learn something new:",
    ...(missing.length > 0 ? missing : onboardingMemories).map(([name, what]) => `- ${name}: ${what}.`),
    "",
    "Memories are for facts that stay true across sessions; do not store task progress or code in them.",
  ];
  return lines.join("\n");
}
