/**
 * Language servers declared in `.scalpel/project.yml` under `language_servers`, without code: the
 * config entry becomes an adapter like the built-in ones (an entry with a built-in id replaces it).
 */

import type { LanguageAdapter, ServerProbe } from "../src/languages/adapter.js";
import type { LanguageServerConfig } from "../src/languages/declared-server.js";
import type { ServerSpec } from "../src/lsp/types.js";
import { resolveProjectCommand } from "./which.js";

/**
 * The answer to `workspace/configuration` for `section`: the settings entry of that exact key, else
 * the dotted path walked through nested objects (`python.analysis` → settings.python.analysis);
 * the whole settings object when no section is asked.
 */
export function settingsSection(
  settings: Record<string, unknown> | undefined,
  section: string | undefined,
): unknown {
  if (!settings) return null;
  if (section === undefined || section === "") return settings;
  if (section in settings) return settings[section];
  let node: unknown = settings;
  for (const key of section.split(".")) {
    if (typeof node !== "object" || node === null || !(key in node)) return null;
    node = (node as Record<string, unknown>)[key];
  }
  return node ?? null;
}

export function customAdapter(id: string, config: LanguageServerConfig): LanguageAdapter {
  const missing = (root: string) =>
    `The ${id} language server '${config.command}' declared in .scalpel/project.yml was not found ` +
    `(looked ${config.command.includes("/") ? `at ${config.command} relative to the project` : `in ${root === "" ? "" : "node_modules/.bin and "}PATH`}). Install it or fix 'command'.`;
  const spec = (root: string): ServerSpec | { missing: string } => {
    const command = resolveProjectCommand(config.command, root);
    if (command === undefined) return { missing: missing(root) };
    const out: ServerSpec = {
      id,
      launch: { command, args: [...config.args] },
      configuration: (section) => settingsSection(config.settings, section),
      // Nothing is known about an arbitrary server's loading: wait for the $/progress it reports
      // after start or after the first didOpen (pyright reports none for small projects), bounded.
      readiness: { waitForProgress: true, settleMs: 500, firstOpenSettleMs: 500, maxWaitMs: 60_000 },
      languageIdFor: () => config.language_id ?? id,
      diagnostics: config.diagnostics,
    };
    if (config.initialization_options !== undefined)
      out.initializationOptions = config.initialization_options;
    if (config.settings !== undefined) out.didChangeConfigurationSettings = config.settings;
    if (config.request_timeout_s !== undefined) out.requestTimeoutMs = config.request_timeout_s * 1000;
    return out;
  };
  const adapter: LanguageAdapter = {
    id,
    displayName: `${id} (${config.command}, from project.yml)`,
    extensions: config.extensions.map((e) => e.toLowerCase()),
    ignoredDirs: [...config.ignored_dirs],
    spec,
    probe: (root = process.cwd()) => Promise.resolve(probeCustom(config, root, missing(root))),
    untrusted: () => ({
      ...adapter,
      spec: () => ({ missing: notTrusted(id) }),
      untrusted: () => adapter.untrusted(),
    }),
  };
  return adapter;
}

/**
 * A declared server is a command the repository chose (`/bin/sh -c …`, a script it ships, a name
 * in its node_modules/.bin): it runs only for a project the user trusts.
 */
export function notTrusted(id: string): string {
  return `The ${id} language server declared in .scalpel/project.yml is not started: the project is not trusted, and its command comes from the repository. To trust it, run \`scalpel trust\` in the project's directory (or start scalpel with --project PATH --trust).`;
}

function probeCustom(config: LanguageServerConfig, root: string, hint: string): ServerProbe {
  const command = resolveProjectCommand(config.command, root);
  // Not run: many servers have no --version and would wait on stdin instead.
  return command === undefined
    ? { found: false, hint }
    : { found: true, command, version: "declared in .scalpel/project.yml" };
}
