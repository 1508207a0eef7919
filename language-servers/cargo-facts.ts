/** What a root Cargo.toml says for onboarding: the Rust adapter's `onboarding`. */
import type { ManifestFacts, OnboardingFacts } from "../src/languages/adapter.js";
import { readToml, stringAt, stringsAt, tableAt, tableIn } from "./toml.js";

/**
 * The package's binaries and the workspace's members from Cargo.toml; null when it is not TOML
 * (onboarding then leaves it out, as it does a manifest it cannot read).
 */
export function cargoFacts(text: string, has: { main: boolean; lib: boolean }): ManifestFacts | null {
  const manifest = readToml(text);
  if (manifest === null) return null;
  const entryPoints: string[] = [];
  const members = stringsAt(tableIn(manifest, "workspace"), "members");
  if (members && members.length > 0) entryPoints.push(`Cargo workspace members: ${members.join(", ")}`);
  const bins = Array.isArray(manifest.bin) ? manifest.bin : [];
  for (const bin of bins) {
    const path = stringAt(tableAt(bin), "path");
    if (path !== undefined) entryPoints.push(`${path} (Cargo.toml [[bin]])`);
  }
  if (has.main) entryPoints.push("src/main.rs (Cargo binary)");
  if (has.lib) entryPoints.push("src/lib.rs (Cargo library)");
  return {
    buildFiles: ["Cargo.toml"],
    entryPoints,
    commands: [
      "cargo build (Cargo.toml)",
      "cargo test (Cargo.toml)",
      "cargo clippy --all-targets (Cargo.toml; lint)",
      "cargo fmt --check (Cargo.toml; format)",
    ],
  };
}

export const cargoOnboarding: OnboardingFacts = {
  manifests: ["Cargo.toml"],
  // Workspaces keep their member crates there by convention.
  sourceFolders: ["crates"],
  async facts(tree) {
    const text = await tree.read("Cargo.toml");
    if (text === null) return null;
    return cargoFacts(text, { main: await tree.isFile("src/main.rs"), lib: await tree.isFile("src/lib.rs") });
  },
};
