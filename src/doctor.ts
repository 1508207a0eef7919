/**
 * `scalpel doctor [--project PATH]`: which language servers are found, their versions, and how to
 * get the rest; with a project, also the servers its project.yml declares.
 */
import { resolve } from "node:path";
import type { LanguageAdapter } from "../language-servers/adapter.js";
import { adapters, adaptersFor } from "../language-servers/index.js";
import { configFile, loadProjectConfig } from "./project/config.js";
import { version } from "./version.js";

async function line(adapter: LanguageAdapter, root?: string): Promise<string> {
  const probe = await adapter.probe(root);
  const where = probe.command ? ` (${probe.command})` : "";
  return probe.found
    ? `✔ ${adapter.displayName}: ${probe.version ?? "version unknown"}${where} — ${adapter.extensions.join(" ")}`
    : `✘ ${adapter.displayName}: not found — ${probe.hint ?? "see README"}`;
}

export async function doctorReport(project?: string, cwd = process.cwd()): Promise<string> {
  const lines = [`scalpel ${version} on Node ${process.version}`];
  // Probes run one after another: each may start a process, and the output order is the list's.
  for (const adapter of adapters) lines.push(await line(adapter));
  if (project !== undefined) {
    const root = resolve(cwd, project);
    const config = await loadProjectConfig(root);
    const declared = Object.keys(config.language_servers);
    lines.push(
      declared.length === 0
        ? `project ${project}: no language servers declared in ${configFile}`
        : `project ${project}: ${declared.length} language server${declared.length === 1 ? "" : "s"} declared in ${configFile}`,
    );
    const builtIn = new Set(adapters.map((a) => a.id));
    for (const adapter of adaptersFor(config.language_servers).filter((a) => declared.includes(a.id))) {
      lines.push(
        `  ${await line(adapter, root)}${builtIn.has(adapter.id) ? " (replaces the built-in server)" : ""}`,
      );
    }
  }
  return lines.join("\n");
}
