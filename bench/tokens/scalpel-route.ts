/**
 * The scalpel route: tool calls through the official MCP SDK client over stdio (the built CLI,
 * started with test/helpers/mcp.ts as the e2e tests and bench/run.ts do), each result counted in
 * both forms a host may show the model. A tool error stops the benchmark: a number measured on an
 * error message would be meaningless.
 */
import { CALL_TIMEOUT_MS, type ScalpelHandle } from "../../test/helpers/mcp.js";
import { type FormChars, fieldChars, formChars, type McpResultLike, textOf } from "./score.js";

export interface ScalpelCall extends FormChars {
  tool: string;
  args: Record<string, unknown>;
  /** Characters of the JSON form by field (score.ts fieldChars). */
  fields: Record<string, number>;
  /** The answer itself, both forms, for reading the JSON results. */
  answer: { text: string; structured: unknown };
}

export interface Answer<T> {
  structured: T;
  text: string;
}

export class ScalpelRoute {
  readonly calls: ScalpelCall[] = [];

  constructor(private readonly h: ScalpelHandle) {}

  get text(): number {
    return this.calls.reduce((n, c) => n + c.text, 0);
  }

  get json(): number {
    return this.calls.reduce((n, c) => n + c.json, 0);
  }

  /** A call the agent makes (counted). */
  call<T>(tool: string, args: Record<string, unknown>): Promise<Answer<T>> {
    return this.invoke<T>(tool, args, true);
  }

  /** Bookkeeping the benchmark needs but the task does not (undo of an edit): not counted. */
  uncounted<T>(tool: string, args: Record<string, unknown>): Promise<Answer<T>> {
    return this.invoke<T>(tool, args, false);
  }

  private async invoke<T>(tool: string, args: Record<string, unknown>, count: boolean): Promise<Answer<T>> {
    // callTool's result type is a union with the protocol's legacy shape; only these fields matter.
    const r: McpResultLike = await this.h.client.callTool({ name: tool, arguments: args }, undefined, {
      timeout: CALL_TIMEOUT_MS,
      resetTimeoutOnProgress: true,
    });
    const text = textOf(r);
    if (r.isError === true || r.structuredContent === undefined) {
      throw new Error(`scalpel ${tool}(${JSON.stringify(args)}) failed: ${text.slice(0, 2000)}`);
    }
    if (count) {
      this.calls.push({
        tool,
        args,
        ...formChars(r),
        fields: fieldChars(r.structuredContent),
        answer: { text, structured: r.structuredContent },
      });
    }
    return { structured: r.structuredContent as T, text };
  }

  /**
   * Calls `tool` and follows the envelope's `next` (`tool {json arguments}`) until the answer is
   * whole, as an agent walking a paged list does; returns every page.
   */
  async paged<T extends { next?: string }>(
    tool: string,
    args: Record<string, unknown>,
  ): Promise<Answer<T>[]> {
    const pages: Answer<T>[] = [];
    let nextArgs: Record<string, unknown> | undefined = args;
    while (nextArgs !== undefined) {
      if (pages.length >= 50) throw new Error(`${tool}: more than 50 pages`);
      const page: Answer<T> = await this.call<T>(tool, nextArgs);
      pages.push(page);
      const next = page.structured.next;
      nextArgs = undefined;
      if (next !== undefined) {
        const m = /^(\w+)\s+(\{.*\})$/s.exec(next);
        if (!m || m[1] !== tool) throw new Error(`${tool}: unexpected next ${next}`);
        nextArgs = JSON.parse(m[2]!) as Record<string, unknown>;
      }
    }
    return pages;
  }
}
