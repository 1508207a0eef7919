/** What a language takes as a new name (rename, the name an extract refactor gives). */
import type { LanguageAdapter } from "./adapter.js";

/** A letter, `_` or `$`, then word characters: JavaScript's rule, which most languages' names fit. */
const defaultIdentifier = /^[\p{L}\p{Nl}_$][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}_$]*$/u;

export function isIdentifier(adapter: Pick<LanguageAdapter, "identifier">, name: string): boolean {
  return (adapter.identifier ?? defaultIdentifier).test(name);
}
