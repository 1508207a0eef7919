/**
 * A language server declared without code in `.scalpel/project.yml` (`language_servers:`): the
 * schema its entry is checked with. `language-servers/custom.ts` builds an adapter from it.
 */
import { z } from "zod";

const extension = z.string().regex(/^\.[A-Za-z0-9_+-]+$/, { message: "must look like '.py'" });

export const languageServerConfigSchema = z.strictObject({
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  extensions: z.array(extension).min(1),
  /** LSP languageId sent in didOpen; defaults to the server's name. */
  language_id: z.string().optional(),
  initialization_options: z.unknown().optional(),
  /** Answered to workspace/configuration requests, by section (dotted paths are walked). */
  settings: z.record(z.string(), z.unknown()).optional(),
  ignored_dirs: z.array(z.string()).default([]),
  request_timeout_s: z.number().positive().optional(),
  diagnostics: z.enum(["push", "pull"]).default("push"),
});
export type LanguageServerConfig = z.infer<typeof languageServerConfigSchema>;
