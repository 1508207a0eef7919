/**
 * `scalpel doctor [--project PATH]`: which language servers are found, their versions, and how to
 * get the rest; with a project, also the servers its project.yml declares, whether the user trusts
 * it, and what trusting it would enable. Doctor reads; it runs no server of the project.
 */
import { realpath } from "node:fs/promises";
import { resolve } from "node:path";
import { adapters, adaptersFor, probedAdapters } from "../language-servers/index.js";
import { configFile, readProjectConfig } from "./config/project-config.js";
import { configDigest, TrustStore, whatTrustWouldEnable } from "./config/trust.js";
import { codeCacheState } from "./core/startup.js";
import { version } from "./core/version.js";
import type { LanguageAdapter } from "./languages/adapter.js";

async function line(adapter: LanguageAdapter, root?: string): Promise<string> {
  const probe = await adapter.probe(root);
  const where = probe.command ? ` (${probe.command})` : "";
  return probe.found
    ? `✔ ${adapter.displayName}: ${probe.version ?? "version unknown"}${where} — ${adapter.extensions.join(" ")}`
    : `✘ ${adapter.displayName}: not found — ${probe.hint ?? "see README"}`;
}

export async function doctorReport(project?: string, cwd = process.cwd()): Promise<string> {
  const cache = codeCacheState();
  const lines = [
    `scalpel ${version} on Node ${process.version}${cache ? ` (start-up code cache: ${cache})` : ""}`,
  ];
  // Probes run one after another: each may start a process, and the output order is the list's.
  for (const adapter of probedAdapters) lines.push(await line(adapter));
  if (project !== undefined) {
    const given = resolve(cwd, project);
    const root = await realpath(given).catch(() => given);
    const { config, text } = await readProjectConfig(root);
    const declared = Object.keys(config.language_servers);
    for (const adapter of adapters) {
      const note = await adapter.doctorNote?.(root, config);
      if (note) lines.push(`project ${project}: ${note}`);
    }
    lines.push(
      declared.length === 0
        ? `project ${project}: no language servers declared in ${configFile}`
        : `project ${project}: ${declared.length} language server${declared.length === 1 ? "" : "s"} declared in ${configFile}`,
    );
    const builtIn = new Set(adapters.map((a) => a.id));
    // Probed as a trusted project would run them: finding a command runs nothing.
    const trusted = adaptersFor(config.language_servers, { trusted: true });
    for (const adapter of trusted.filter((a) => declared.includes(a.id))) {
      lines.push(
        `  ${await line(adapter, root)}${builtIn.has(adapter.id) ? " (replaces the built-in server)" : ""}`,
      );
    }
    const state = await new TrustStore().state(root, configDigest(text));
    if (state === "trusted") {
      lines.push(`project ${project}: trusted (scalpel trust); its declared servers and build scripts run`);
    } else {
      lines.push(
        `project ${project}: ${state === "changed" ? `trusted before, but ${configFile} changed since: not trusted now` : "not trusted"} — nothing from the repository runs. Trusting it (\`scalpel trust ${project}\`) would:`,
      );
      const enables = await whatTrustWouldEnable(root, config);
      for (const what of enables.length > 0 ? enables : ["nothing more for this project"])
        lines.push(`  - ${what}`);
    }
  }
  return lines.join("\n");
}
