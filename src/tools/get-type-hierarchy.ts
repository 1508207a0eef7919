import type { TypeHierarchyItem } from "vscode-languageserver-protocol";
import { z } from "zod";
import { completenessOf } from "../lsp/completeness.js";
import {
  type Place,
  placeLabel,
  placeSchema,
  prepareItems,
  walkLevels,
} from "../navigation/hierarchy-items.js";
import { FileViews } from "../references/locations.js";
import { requireSupport } from "../servers/support.js";
import { resolveSymbol } from "../symbols/access.js";
import { symbolSchema, toSymbolResult } from "../symbols/result.js";
import { defineTool, readOnly } from "./kit/define.js";
import { completeness, definingFile, namePath } from "./kit/params.js";

const MAX_DEPTH = 3;
const MAX_ITEMS = 200;

const typeSchema = z.object({
  ...placeSchema,
  depth: z.number().int().describe("1: direct supertype / subtype; 2: one step further, ..."),
  via: z.string().optional().describe("at depth > 1: the name path of the type one level closer"),
});
type TypeEntry = z.infer<typeof typeSchema>;

export const getTypeHierarchyTool = defineTool({
  name: "get_type_hierarchy",
  title: "Get type hierarchy",
  description: "Supertypes and subtypes of a class, interface or trait, where the server offers it.",
  input: {
    name_path: namePath,
    relative_path: definingFile,
    direction: z.enum(["supertypes", "subtypes", "both"]).default("both"),
    depth: z.number().int().min(1).max(MAX_DEPTH).default(1),
  },
  output: {
    symbol: symbolSchema,
    supertypes: z.array(typeSchema).optional().describe("level by level (direction supertypes or both)"),
    subtypes: z.array(typeSchema).optional().describe("level by level (direction subtypes or both)"),
    stopped: z.array(z.string()).optional().describe("where the walk stopped before the hierarchy ended"),
    ...completeness,
  },
  annotations: readOnly,
  async run(args, ctx) {
    const project = ctx.project;
    const { file, node } = await resolveSymbol(project, args.relative_path, args.name_path, ctx.signal);
    const session = file.session;
    requireSupport(
      session,
      file.adapter.id,
      "typeHierarchyProvider",
      "get_type_hierarchy",
      "Use find_implementations for the subtypes and implementations of an interface, trait or abstract class, and find_symbol with include_body for a class's declared supertypes.",
    );
    const opts = { signal: ctx.signal };
    const roots = await prepareItems<TypeHierarchyItem>(
      { session, adapterId: file.adapter.id, uri: file.doc.uri, node, signal: ctx.signal },
      "textDocument/prepareTypeHierarchy",
      "a class, interface, struct or trait",
    );
    const views = new FileViews(project, ctx.signal);
    const stopped: string[] = [];
    const walk = async (direction: "supertypes" | "subtypes"): Promise<TypeEntry[]> => {
      const reached = await walkLevels<TypeHierarchyItem, TypeHierarchyItem>(
        project,
        views,
        {
          roots,
          depth: args.depth,
          maxDepth: MAX_DEPTH,
          maxItems: MAX_ITEMS,
          direction,
          noun: "type",
          limitNote: () => `${direction}: ${MAX_ITEMS} types listed at most`,
          ask: (item) =>
            session.request<TypeHierarchyItem[] | null>(`typeHierarchy/${direction}`, { item }, opts),
          next: (type) => type,
        },
        stopped,
      );
      return reached.map(({ place, depth, via }) => ({
        ...place,
        depth,
        ...(via !== undefined ? { via } : {}),
      }));
    };
    const supertypes = args.direction === "subtypes" ? undefined : await walk("supertypes");
    const subtypes = args.direction === "supertypes" ? undefined : await walk("subtypes");
    return {
      symbol: toSymbolResult(node, file.path.rel, { depth: 0 }),
      ...(supertypes ? { supertypes } : {}),
      ...(subtypes ? { subtypes } : {}),
      ...(stopped.length > 0 ? { stopped } : {}),
      ...completenessOf(session),
    };
  },
  render(r) {
    const head = `Type hierarchy of ${r.symbol.name_path}${r.complete ? "" : ` (incomplete: ${r.incomplete_reason})`}`;
    const section = (title: string, list: TypeEntry[] | undefined) =>
      list
        ? [
            `${title} (${list.length}):`,
            ...list.map(
              (t) => `${"  ".repeat(t.depth)}${placeLabel(t as Place)}${t.via ? ` (of ${t.via})` : ""}`,
            ),
          ]
        : [];
    return [
      head,
      ...section("supertypes", r.supertypes),
      ...section("subtypes", r.subtypes),
      ...(r.stopped ?? []).map((s) => `stopped: ${s}`),
    ].join("\n");
  },
});
