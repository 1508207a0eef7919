import type {
  CallHierarchyIncomingCall,
  CallHierarchyItem,
  CallHierarchyOutgoingCall,
} from "vscode-languageserver-protocol";
import { z } from "zod";
import { plural } from "../core/words.js";
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

const callSchema = z.object({
  ...placeSchema,
  depth: z.number().int().describe("1: calls the symbol itself / makes; 2: one step further, ..."),
  via: z
    .string()
    .optional()
    .describe("at depth > 1: the name path of the depth-1-less symbol this call reaches"),
  sites: z
    .array(z.number().int())
    .describe(
      "1-based lines of the call sites: incoming, in the caller's file; outgoing, in the calling symbol's file",
    ),
});
type Call = z.infer<typeof callSchema>;

type Direction = "incoming" | "outgoing";

export const getCallHierarchyTool = defineTool({
  name: "get_call_hierarchy",
  title: "Get call hierarchy",
  description: "Callers or callees of a function, to a depth, with call lines.",
  input: {
    name_path: namePath,
    relative_path: definingFile,
    direction: z.enum(["incoming", "outgoing", "both"]).default("incoming"),
    depth: z.number().int().min(1).max(MAX_DEPTH).default(1),
    max_items: z.number().int().min(1).max(500).default(100).describe("per direction"),
  },
  output: {
    symbol: symbolSchema,
    incoming: z.array(callSchema).optional().describe("callers, level by level (direction incoming or both)"),
    outgoing: z.array(callSchema).optional().describe("callees, level by level (direction outgoing or both)"),
    stopped: z
      .array(z.string())
      .optional()
      .describe("where the walk stopped before the graph ended (depth reached, max_items, cycles are not)"),
    ...completeness,
  },
  annotations: readOnly,
  async run(args, ctx) {
    const project = ctx.project;
    const { file, node } = await resolveSymbol(project, args.relative_path, args.name_path, ctx.signal, true);
    const session = file.session;
    requireSupport(
      session,
      file.adapter.id,
      "callHierarchyProvider",
      "get_call_hierarchy",
      "Use find_referencing_symbols for the symbol's callers instead.",
    );
    const opts = { signal: ctx.signal };
    const roots = await prepareItems<CallHierarchyItem>(
      { session, adapterId: file.adapter.id, uri: file.doc.uri, node, signal: ctx.signal },
      "textDocument/prepareCallHierarchy",
      "a function or method",
    );
    const views = new FileViews(project, ctx.signal);
    const stopped: string[] = [];
    const walk = async (direction: Direction): Promise<Call[]> => {
      const reached = await walkLevels<
        CallHierarchyItem,
        CallHierarchyIncomingCall | CallHierarchyOutgoingCall
      >(
        project,
        views,
        {
          roots,
          depth: args.depth,
          maxDepth: MAX_DEPTH,
          maxItems: args.max_items,
          direction,
          noun: "symbol",
          limitNote: (depth) =>
            `${direction}: max_items=${args.max_items} reached at depth ${depth}; raise max_items`,
          ask: (item) =>
            direction === "incoming"
              ? session.request<CallHierarchyIncomingCall[] | null>(
                  "callHierarchy/incomingCalls",
                  { item },
                  opts,
                )
              : session.request<CallHierarchyOutgoingCall[] | null>(
                  "callHierarchy/outgoingCalls",
                  { item },
                  opts,
                ),
          next: (call) => ("from" in call ? call.from : call.to),
        },
        stopped,
      );
      return reached.map(({ place, depth, via, answer }) => ({
        ...place,
        depth,
        ...(via !== undefined ? { via } : {}),
        sites: [...new Set(answer.fromRanges.map((r) => r.start.line + 1))].sort((a, b) => a - b),
      }));
    };
    const incoming = args.direction === "outgoing" ? undefined : await walk("incoming");
    const outgoing = args.direction === "incoming" ? undefined : await walk("outgoing");
    return {
      symbol: toSymbolResult(node, file.path.rel, { depth: 0 }),
      ...(incoming ? { incoming } : {}),
      ...(outgoing ? { outgoing } : {}),
      ...(stopped.length > 0 ? { stopped } : {}),
      ...completenessOf(session),
    };
  },
  render(r) {
    const head = `Call hierarchy of ${r.symbol.name_path}${r.complete ? "" : ` (incomplete: ${r.incomplete_reason})`}`;
    // `src/a.ts Wallet/grow:11 calls it at 14` (incoming); `... called at 13` (outgoing, lines in
    // the calling symbol's file); deeper levels are indented and name the symbol they reach.
    const section = (title: string, incoming: boolean, calls: Call[] | undefined) => {
      if (!calls) return [];
      return [
        `${title} (${plural(calls.length, "call")}):`,
        ...calls.map((c) => {
          const target = c.via ?? r.symbol.name_path;
          const how = incoming ? `calls ${target} at` : `called by ${target} at`;
          return `${"  ".repeat(c.depth)}${placeLabel(c as Place)} ${how} ${c.sites.join(", ")}`;
        }),
      ];
    };
    return [
      head,
      ...section("incoming", true, r.incoming),
      ...section("outgoing", false, r.outgoing),
      ...(r.stopped ?? []).map((s) => `stopped: ${s}`),
    ].join("\n");
  },
});
