/** What a root Cargo.toml says for onboarding: the Rust adapter's `onboarding`. */
import type { ManifestFacts, OnboardingFacts } from "../src/languages/adapter.js";

/** Cargo.toml without a TOML parser: package name, binaries and workspace members are enough here. */
export function cargoFacts(text: string, has: { main: boolean; lib: boolean }): ManifestFacts {
  const entryPoints: string[] = [];
  const workspace = /^\[workspace\]/m.test(text);
  const members = /members\s*=\s*\[([^\]]*)\]/m.exec(text)?.[1];
  if (workspace && members) {
    const list = [...members.matchAll(/"([^"]+)"/g)].map((m) => m[1]);
    entryPoints.push(`Cargo workspace members: ${list.join(", ")}`);
  }
  for (const m of text.matchAll(/^\[\[bin\]\][^[]*?path\s*=\s*"([^"]+)"/gm)) {
    entryPoints.push(`${m[1]} (Cargo.toml [[bin]])`);
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
