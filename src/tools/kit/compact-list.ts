/**
 * What `tools/list` costs every session before its first call. The SDK writes each schema as zod
 * renders it: an integer carries JavaScript's safe-integer bounds (`"minimum":-9007199254740991,
 * "maximum":9007199254740991`, 60 characters, hundreds of times), and output schemas repeat every
 * field's prose description (the same edit result, 5,047 characters, eight times). Neither helps a
 * model pick or call a tool: the bounds say nothing an integer does not, and the field names and
 * the tools' own descriptions say what an answer holds. Both are dropped from the listed schemas;
 * validation is unchanged (the SDK validates with the zod schemas, the client with what is listed,
 * which still types every field).
 */
type Json = unknown;
type Handler = (request: unknown, extra: unknown) => Promise<{ tools: Array<Record<string, Json>> }>;

const safeMax = Number.MAX_SAFE_INTEGER;

/** A schema without the safe-integer bounds, and (`prose: false`) without descriptions. */
export function compactSchema(schema: Json, prose: boolean): Json {
  if (Array.isArray(schema)) return schema.map((s) => compactSchema(s, prose));
  if (schema === null || typeof schema !== "object") return schema;
  const out: Record<string, Json> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "minimum" && value === -safeMax) continue;
    if (key === "maximum" && value === safeMax) continue;
    if (key === "$schema") continue;
    // A property named "description" is a field, not prose: only the keyword's string goes.
    if (!prose && key === "description" && typeof value === "string") continue;
    out[key] = compactSchema(value, prose);
  }
  return out;
}

/**
 * Wraps the SDK's tools/list handler (1.32 keeps it in Protocol's private `_requestHandlers`;
 * the contract test lists the tools, so an SDK that moves it fails there, not silently).
 */
export function compactToolList(server: { server: object }): void {
  const handlers = (server.server as unknown as { _requestHandlers?: Map<string, Handler> })._requestHandlers;
  const original = handlers?.get("tools/list");
  if (!handlers || !original)
    throw new Error("the MCP SDK has no tools/list handler where scalpel expects it");
  handlers.set("tools/list", async (request, extra) => {
    const listed = await original(request, extra);
    return {
      ...listed,
      tools: listed.tools.map((tool) => ({
        ...tool,
        ...(tool.inputSchema ? { inputSchema: compactSchema(tool.inputSchema, true) } : {}),
        ...(tool.outputSchema ? { outputSchema: compactSchema(tool.outputSchema, false) } : {}),
      })),
    };
  });
}
