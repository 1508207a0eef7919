/** What a root pubspec.yaml says for onboarding: the Dart adapter's `onboarding`. */
import { parse as parseYaml } from "yaml";
import type { OnboardingFacts } from "../src/languages/adapter.js";

export const pubspecOnboarding: OnboardingFacts = {
  manifests: ["pubspec.yaml"],
  async facts(tree) {
    const text = await tree.read("pubspec.yaml");
    if (text === null) return null;
    let spec: Record<string, unknown> = {};
    try {
      spec = (parseYaml(text) ?? {}) as Record<string, unknown>;
    } catch {
      // A broken pubspec still tells us it is a Dart project.
    }
    const deps = spec.dependencies && typeof spec.dependencies === "object" ? spec.dependencies : {};
    const flutter = "flutter" in deps;
    const entryPoints: string[] = [];
    if (await tree.isFile("lib/main.dart")) entryPoints.push("lib/main.dart (Dart/Flutter app)");
    for (const f of await tree.files("bin"))
      if (f.endsWith(".dart")) entryPoints.push(`bin/${f} (Dart executable)`);
    const tool = flutter ? "flutter" : "dart";
    return {
      buildFiles: ["pubspec.yaml"],
      entryPoints,
      commands: [
        `${tool} pub get (pubspec.yaml)`,
        `${tool} test (pubspec.yaml)`,
        `${flutter ? "flutter analyze" : "dart analyze"} (pubspec.yaml; lint)`,
        "dart format . (pubspec.yaml; format)",
      ],
    };
  },
};
