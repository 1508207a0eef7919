/** The one list of language adapters; everything else iterates it. */
import type { LanguageAdapter } from "./adapter.js";
import { typescriptAdapter } from "./typescript.js";

export const adapters: readonly LanguageAdapter[] = [typescriptAdapter];
