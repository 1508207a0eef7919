/**
 * The name-path grammar, in one place. A pattern is `seg/seg/...`, optionally absolute with a
 * leading `/`; a segment is a name with an optional `[index]` that picks one of several siblings
 * sharing the name (overloads, getter/setter pairs), numbered in document order.
 */
import { AppError } from "../core/errors.js";

export interface PatternSegment {
  name: string;
  index?: number;
}

export interface NamePathPattern {
  absolute: boolean;
  segments: PatternSegment[];
}

/** One step of a symbol's own path: its name and, when siblings share it, its index among them. */
export interface PathStep {
  name: string;
  index: number;
  /** How many siblings share the name; the index is shown only when this is above 1. */
  shared: number;
  /** Another name a pattern may use for this step (a Rust impl header for its type). */
  alias?: string;
}

const segmentRe = /^(.*?)(?:\[(\d+)\])?$/s;

export function parseNamePath(pattern: string): NamePathPattern {
  const trimmed = pattern.trim();
  if (trimmed === "" || trimmed === "/") {
    throw new AppError("invalid_argument", "The name path is empty. Give a symbol name such as 'Money/add'.");
  }
  if (trimmed.includes("\0")) throw new AppError("invalid_argument", "The name path contains a NUL byte.");
  const absolute = trimmed.startsWith("/");
  const body = absolute ? trimmed.slice(1) : trimmed;
  const parts = body.endsWith("/") ? body.slice(0, -1).split("/") : body.split("/");
  const segments = parts.map((part): PatternSegment => {
    const m = segmentRe.exec(part);
    const name = m?.[1] ?? part;
    if (name === "") {
      throw new AppError(
        "invalid_argument",
        `The name path '${pattern}' has an empty segment. Separate names with a single '/', e.g. 'Money/add'.`,
      );
    }
    return m?.[2] === undefined ? { name } : { name, index: Number(m[2]) };
  });
  return { absolute, segments };
}

export function formatNamePath(steps: readonly PathStep[]): string {
  return steps.map((s) => (s.shared > 1 ? `${s.name}[${s.index}]` : s.name)).join("/");
}

function stepMatches(seg: PatternSegment, step: PathStep, substring: boolean): boolean {
  const nameOk = substring ? step.name.includes(seg.name) : step.name === seg.name || step.alias === seg.name;
  return nameOk && (seg.index === undefined || seg.index === step.index);
}

/**
 * Suffix match of the pattern against a symbol's path; absolute patterns must match the whole
 * path. `substring` applies to the last segment only.
 */
export function matchesNamePath(
  pattern: NamePathPattern,
  path: readonly PathStep[],
  substring = false,
): boolean {
  const segs = pattern.segments;
  if (segs.length > path.length) return false;
  if (pattern.absolute && segs.length !== path.length) return false;
  const offset = path.length - segs.length;
  for (let i = 0; i < segs.length; i++) {
    const last = i === segs.length - 1;
    if (!stepMatches(segs[i]!, path[offset + i]!, substring && last)) return false;
  }
  return true;
}
