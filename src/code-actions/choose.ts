/**
 * Which offered action a caller means: by title (exact, else a case-insensitive part of one) and/or
 * by kind (the LSP kind or a prefix of it). Anything but exactly one match applies nothing.
 */
import { AppError } from "../core/errors.js";
import { kindMatches, type OfferedAction } from "./offered.js";

/** Actions named in a no-match or several-matches message. */
const listed = 15;

export function describeAction(a: OfferedAction): string {
  return `"${a.title}"${a.kind ? ` (${a.kind})` : ""}`;
}

function listOf(actions: readonly OfferedAction[]): string {
  const shown = actions.slice(0, listed).map((a) => `  ${describeAction(a)}`);
  if (actions.length > listed) shown.push(`  … and ${actions.length - listed} more`);
  return shown.join("\n");
}

export function chooseAction(
  actions: readonly OfferedAction[],
  title: string | undefined,
  kind: string | undefined,
  where: string,
): OfferedAction {
  if (title === undefined && kind === undefined) {
    throw new AppError(
      "invalid_argument",
      "Say which action to apply: give title (as get_code_actions lists it, or a part of it) and/or kind.",
    );
  }
  const ofKind = kind === undefined ? actions : actions.filter((a) => kindMatches(a.kind, kind));
  let found = ofKind;
  if (title !== undefined) {
    const exact = ofKind.filter((a) => a.title === title);
    const lower = title.toLowerCase();
    found = exact.length > 0 ? exact : ofKind.filter((a) => a.title.toLowerCase().includes(lower));
  }
  if (found.length === 1) return found[0]!;
  const asked = [title !== undefined ? `title "${title}"` : "", kind !== undefined ? `kind ${kind}` : ""]
    .filter(Boolean)
    .join(" and ");
  if (found.length > 1) {
    throw new AppError(
      "multiple_matches",
      `${found.length} actions ${where} match ${asked}; nothing was applied. Give the exact title of one:\n${listOf(found)}`,
      { count: found.length, titles: found.map((a) => a.title) },
    );
  }
  if (actions.length === 0) {
    throw new AppError(
      "no_match",
      `The language server offers no code action ${where}${kind !== undefined ? ` of kind ${kind}` : ""}; nothing was applied. Check the lines (the action's diagnostic or the code to refactor must be on them).`,
    );
  }
  throw new AppError(
    "no_match",
    `No action ${where} matches ${asked}; nothing was applied. Offered:\n${listOf(actions)}`,
  );
}
