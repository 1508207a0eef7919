/**
 * What `tools/list` costs every session before its first call. The SDK writes each schema as zod
 * renders it: an integer carries JavaScript's safe-integer bounds (`"minimum":-9007199254740991,
 * "maximum":9007199254740991`, 60 characters, hundreds of times), an optional flag its `"default":
 * false`, and output schemas spell out every nested field with its prose (the same edit result,
 * 5,047 characters, eight times). None of it helps a model pick or call a tool, so the listed
 * schemas leave it out:
 * - input schemas lose the safe-integer bounds, the lower bounds 0 and 1 (counts start at 0, lines
 *   and columns at 1 everywhere, as the manual says) and the defaults a model reads off the type (an
 *   omitted flag is off, an omitted count 0, an omitted path or list empty); other bounds and
 *   defaults stay, and the server still refuses what they exclude (`invalid_argument`); a
 *   non-empty string is not marked (`minLength: 1`), and max_answer_chars's default and bound are
 *   said once in the server's instructions (onboarding/manual.ts `sharedParameters`);
 * - output schemas are shallow: the top level's fields keep their types, an array's items and an
 *   object's fields below them are typed loosely (`{"type":"object"}`), and no prose is kept.
 * Validation is unchanged where it matters: the SDK server validates every answer with the full zod
 * schema before it is sent, and the client's check against the listed (looser) schema cannot fail
 * on an answer that passed it.
 */
type Json = unknown;
type Schema = Record<string, Json>;
type Handler = (request: unknown, extra: unknown) => Promise<{ tools: Array<Record<string, Json>> }>;

const safeMax = Number.MAX_SAFE_INTEGER;

const isObject = (v: Json): v is Schema => v !== null && typeof v === "object" && !Array.isArray(v);

/** Shared parameters whose default and bounds the server's instructions state (`sharedParameters`). */
const statedOnce: Record<string, Json> = { max_answer_chars: { type: "integer" } };

/** A default the type already implies. */
function impliedDefault(value: Json): boolean {
  return value === false || value === 0 || value === "" || (Array.isArray(value) && value.length === 0);
}

/** An input schema without the safe-integer bounds and implied defaults (descriptions kept). */
export function compactInput(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(compactInput);
  if (!isObject(schema)) return schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "minimum" && (value === -safeMax || value === 0 || value === 1)) continue;
    if (key === "minLength" && value === 1) continue;
    if (key === "maximum" && value === safeMax) continue;
    if (key === "$schema") continue;
    if (key === "default" && impliedDefault(value)) continue;
    // "properties" maps names to schemas: a parameter named "default" is not the keyword.
    out[key] =
      key === "properties" && isObject(value)
        ? Object.fromEntries(
            Object.entries(value).map(([k, v]) => [k, k in statedOnce ? statedOnce[k] : compactInput(v)]),
          )
        : compactInput(value);
  }
  return out;
}

/** The type of `schema` only: `$ref`s point at object definitions, unions keep their branches' types. */
function typeOnly(schema: Json, defs: Schema): Schema {
  if (!isObject(schema)) return {};
  if (typeof schema.$ref === "string") {
    const target = defs[schema.$ref.replace(/^#\/(definitions|\$defs)\//, "")];
    return isObject(target) && target.type !== undefined ? { type: target.type } : {};
  }
  for (const union of ["anyOf", "oneOf"] as const) {
    const branches = schema[union];
    if (Array.isArray(branches)) return { [union]: branches.map((b) => typeOnly(b, defs)) };
  }
  return schema.type === undefined ? {} : { type: schema.type };
}

/** A top-level field: its type, and an array's item type. */
function shallowField(schema: Json, defs: Schema): Schema {
  const typed = typeOnly(schema, defs);
  if (isObject(schema) && schema.type === "array" && schema.items !== undefined)
    return { ...typed, items: typeOnly(schema.items, defs) };
  if (isObject(schema) && Array.isArray(schema.anyOf))
    return { anyOf: schema.anyOf.map((b) => shallowField(b, defs)) };
  return typed;
}

/** An output schema typed at its top level only (see the file's comment). */
export function shallowOutput(schema: Json): Json {
  if (!isObject(schema) || !isObject(schema.properties)) return schema;
  const defs = {
    ...(isObject(schema.definitions) ? schema.definitions : {}),
    ...(isObject(schema.$defs) ? schema.$defs : {}),
  };
  const properties = Object.fromEntries(
    Object.entries(schema.properties).map(([name, field]) => [name, shallowField(field, defs)]),
  );
  return {
    type: "object",
    properties,
    ...(schema.required !== undefined ? { required: schema.required } : {}),
    ...(schema.additionalProperties !== undefined
      ? { additionalProperties: schema.additionalProperties }
      : {}),
  };
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
        ...(tool.inputSchema ? { inputSchema: compactInput(tool.inputSchema) } : {}),
        ...(tool.outputSchema ? { outputSchema: shallowOutput(tool.outputSchema) } : {}),
      })),
    };
  });
}
