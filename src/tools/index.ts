/** The one list of tools, in the order clients show them. */
import { activateProjectTool } from "./activate-project.js";
import { applyCodeActionTool } from "./apply-code-action.js";
import { createTextFileTool } from "./create-text-file.js";
import { deleteMemoryTool } from "./delete-memory.js";
import { editMemoryTool } from "./edit-memory.js";
import { findDeclarationTool } from "./find-declaration.js";
import { findFileTool } from "./find-file.js";
import { findImplementationsTool } from "./find-implementations.js";
import { findReferencingSymbolsTool } from "./find-referencing-symbols.js";
import { findSymbolTool } from "./find-symbol.js";
import { getCallHierarchyTool } from "./get-call-hierarchy.js";
import { getChangeImpactTool } from "./get-change-impact.js";
import { getCodeActionsTool } from "./get-code-actions.js";
import { getCurrentConfigTool } from "./get-current-config.js";
import { getDiagnosticsForFileTool } from "./get-diagnostics-for-file.js";
import { getProjectDiagnosticsTool } from "./get-project-diagnostics.js";
import { getSymbolsOverviewTool } from "./get-symbols-overview.js";
import { getTypeHierarchyTool } from "./get-type-hierarchy.js";
import { getTypeInfoTool } from "./get-type-info.js";
import { initialInstructionsTool } from "./initial-instructions.js";
import { insertAfterSymbolTool } from "./insert-after-symbol.js";
import { insertBeforeSymbolTool } from "./insert-before-symbol.js";
import { type ToolDef, writesFiles } from "./kit/define.js";
import { listDirTool } from "./list-dir.js";
import { listMemoriesTool } from "./list-memories.js";
import { moveFileTool } from "./move-file.js";
import { moveSymbolTool } from "./move-symbol.js";
import { onboardingTool } from "./onboarding.js";
import { readFileTool } from "./read-file.js";
import { readMemoryTool } from "./read-memory.js";
import { renameSymbolTool } from "./rename-symbol.js";
import { replaceContentTool } from "./replace-content.js";
import { replaceSymbolBodyTool } from "./replace-symbol-body.js";
import { safeDeleteSymbolTool } from "./safe-delete-symbol.js";
import { searchForPatternTool } from "./search-for-pattern.js";
import { searchSymbolsTool } from "./search-symbols.js";
import { undoEditTool } from "./undo-edit.js";
import { writeMemoryTool } from "./write-memory.js";

export const allTools: readonly ToolDef[] = [
  activateProjectTool,
  getCurrentConfigTool,
  onboardingTool,
  initialInstructionsTool,
  listMemoriesTool,
  readMemoryTool,
  writeMemoryTool,
  editMemoryTool,
  deleteMemoryTool,
  getSymbolsOverviewTool,
  findSymbolTool,
  searchSymbolsTool,
  findReferencingSymbolsTool,
  findImplementationsTool,
  findDeclarationTool,
  getTypeInfoTool,
  getCallHierarchyTool,
  getTypeHierarchyTool,
  replaceSymbolBodyTool,
  insertBeforeSymbolTool,
  insertAfterSymbolTool,
  renameSymbolTool,
  safeDeleteSymbolTool,
  getCodeActionsTool,
  applyCodeActionTool,
  moveSymbolTool,
  moveFileTool,
  undoEditTool,
  getDiagnosticsForFileTool,
  getProjectDiagnosticsTool,
  getChangeImpactTool,
  readFileTool,
  listDirTool,
  findFileTool,
  searchForPatternTool,
  createTextFileTool,
  replaceContentTool,
] as unknown as readonly ToolDef[];

/** Tools available in a session: read-only mode leaves out every tool that writes files. */
export function toolsFor(readOnlyMode: boolean): readonly ToolDef[] {
  return readOnlyMode ? allTools.filter((t) => !writesFiles(t)) : allTools;
}
