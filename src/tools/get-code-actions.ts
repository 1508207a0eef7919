import { z } from "zod";
import { kindMatches, offeredActions } from "../code-actions/offered.js";
import { plural } from "../core/words.js";
import { linesInput } from "./kit/code-action-params.js";
import { defineTool, readOnly } from "./kit/define.js";
import { completeness } from "./kit/params.js";

/** Characters of a fixed diagnostic's message kept in the list. */
const messageChars = 100;

export const getCodeActionsTool = defineTool({
  name: "get_code_actions",
  title: "Code actions for lines",
  description:
    "Quick fixes (with the diagnostics each fixes), refactors and source actions (organize imports, fix all) for a line or range; apply_code_action applies one.",
  input: {
    ...linesInput,
    kinds: z
      .array(z.string().min(1))
      .optional()
      .describe("LSP kinds or prefixes (quickfix, refactor.extract…)"),
  },
  output: {
    relative_path: z.string(),
    actions: z.array(
      z.object({
        title: z.string(),
        kind: z.string().optional(),
        fixes: z.array(z.string()).optional(),
        preferred: z.boolean().optional(),
      }),
    ),
    not_offered: z.array(z.string()).optional(),
    ...completeness,
  },
  annotations: readOnly,
  narrowHint: "Give a narrower range, or kinds.",
  async run(args, ctx) {
    const offered = await offeredActions(ctx.project, {
      relativePath: args.relative_path,
      startLine: args.start_line,
      ...(args.end_line !== undefined ? { endLine: args.end_line } : {}),
      ...(args.kinds ? { kinds: args.kinds } : {}),
      signal: ctx.signal,
    });
    const actions = offered.actions.map((a) => {
      const fixes = a.diagnostics.map((d) => {
        // The first line says what is wrong; the rest (a type's missing members) is for the diagnostics tools.
        const msg = (typeof d.message === "string" ? d.message : d.message.value).split("\n")[0]!;
        const code = d.code !== undefined ? ` [${d.code}]` : "";
        return `${d.range.start.line + 1}:${d.range.start.character + 1}${code} ${msg.length > messageChars ? `${msg.slice(0, messageChars)}…` : msg}`;
      });
      return {
        title: a.title,
        ...(a.kind ? { kind: a.kind } : {}),
        ...(fixes.length > 0 ? { fixes } : {}),
        ...(a.preferred ? { preferred: true } : {}),
      };
    });
    // A kind asked for and not offered is said, never an empty list that looks whole.
    const notOffered = (args.kinds ?? []).filter((k) => !offered.actions.some((a) => kindMatches(a.kind, k)));
    return {
      relative_path: offered.file.path.rel,
      actions,
      ...(notOffered.length > 0 ? { not_offered: notOffered } : {}),
      complete: offered.gap === undefined,
      ...(offered.gap ? { incomplete_reason: offered.gap } : {}),
    };
  },
  render(r) {
    const out = [`${r.relative_path}: ${plural(r.actions.length, "code action")}`];
    for (const a of r.actions) {
      out.push(`${a.kind ?? "(no kind)"}  ${a.title}${a.preferred ? "  (preferred)" : ""}`);
      for (const f of a.fixes ?? []) out.push(`    fixes ${f}`);
    }
    if (r.not_offered)
      out.push(`The server offers nothing of kind ${r.not_offered.join(", ")} for these lines.`);
    if (!r.complete) out.push(`(incomplete: ${r.incomplete_reason})`);
    return out.join("\n");
  },
});
