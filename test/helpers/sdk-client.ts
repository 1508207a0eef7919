/**
 * The official SDK client every test drives scalpel with, validating each structuredContent
 * against its tool's outputSchema exactly as a host's client does (the SDK's own AJV validator).
 * What differs is only when a schema is compiled: the SDK compiles every listed tool's schema at
 * `listTools`, 0.7 s of CPU per client measured on this machine (an e2e file opens several, the
 * suite ~150), though a test calls a few tools. Here a schema is compiled when its tool's first
 * answer is checked, and once per process for the same schema text.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator,
} from "@modelcontextprotocol/sdk/validation/types.js";

const ajv = new AjvJsonSchemaValidator();
const compiled = new Map<string, JsonSchemaValidator<unknown>>();

const lazyAjv: jsonSchemaValidator = {
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    const key = JSON.stringify(schema);
    return (input: unknown) => {
      let validate = compiled.get(key);
      if (validate === undefined) {
        validate = ajv.getValidator<unknown>(schema);
        compiled.set(key, validate);
      }
      return validate(input) as ReturnType<JsonSchemaValidator<T>>;
    };
  },
};

/** A client named `name`, with the SDK's validation of structured results. */
export function sdkClient(name: string): Client {
  return new Client({ name, version: "0.0.0" }, { jsonSchemaValidator: lazyAjv });
}
