/**
 * A tool's arguments as one strict object, on every path: MCP registers this schema (the SDK
 * validates with it before our handler, and `tools/list` shows `additionalProperties: false`), the
 * wrapper parses with it, and the terminal checks with it before a project is opened. An unknown
 * parameter is refused, not dropped: `verify: true` given to an editing tool used to be stripped
 * silently and the edit applied unverified.
 */
import { z } from "zod";
import { didYouMean } from "../../core/did-you-mean.js";
import type { ToolDef } from "./define.js";

const objects = new WeakMap<ToolDef, z.ZodObject>();

/** The strict input object of a tool (one per definition, so registration and calls share it). */
export function inputObject(def: ToolDef): z.ZodObject {
  let object = objects.get(def);
  if (!object) {
    const valid = Object.keys(def.input);
    object = z.strictObject(def.input, {
      // The SDK puts this message into its error as is: it is what a host shows the model.
      error: (issue) =>
        issue.code === "unrecognized_keys" ? unknownParameters(def.name, issue.keys, valid) : undefined,
    });
    objects.set(def, object);
  }
  return object;
}

/**
 * Names the unknown parameters with the likely intended ones, says nothing was done, and lists the
 * valid ones (`spell` writes a name as the caller gives it: `'name'` in MCP, `--name` on the
 * command line).
 */
export function unknownParameters(
  tool: string,
  keys: readonly string[],
  valid: readonly string[],
  spell: (name: string) => string = (n) => `'${n}'`,
): string {
  const named = keys.map((key) => {
    const near = didYouMean(key, valid);
    return near ? `${spell(key)} (did you mean ${spell(near)}?)` : spell(key);
  });
  const which = keys.length === 1 ? "parameter" : "parameters";
  return `unknown ${which} ${named.join(", ")}: ${tool} has no such ${which} and did nothing. Its parameters: ${valid.map(spell).join(", ") || "none"}`;
}
