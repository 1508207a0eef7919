/** `scalpel doctor`: which language servers are found, their versions, and how to get the rest. */
import { adapters } from "../language-servers/index.js";
import { version } from "./version.js";

export async function doctorReport(): Promise<string> {
  const lines = [`scalpel ${version} on Node ${process.version}`];
  for (const adapter of adapters) {
    const probe = await adapter.probe();
    const where = probe.command ? ` (${probe.command})` : "";
    lines.push(
      probe.found
        ? `✔ ${adapter.displayName}: ${probe.version ?? "version unknown"}${where} — ${adapter.extensions.join(" ")}`
        : `✘ ${adapter.displayName}: not found — ${probe.hint ?? "see README"}`,
    );
  }
  return lines.join("\n");
}
