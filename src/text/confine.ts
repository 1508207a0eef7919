/**
 * Where the reader and the writer ask whether a file they actually opened may be used. The path
 * gate (`security/sandbox.ts`) checks a path when it mints it, but a symbolic link on the way can be
 * swapped by another process between that check and the open. So the reader and the writer open
 * without following a final link, find out which file they really hold (`opened-path.ts`), and,
 * when that is not the path they were given (a link was followed), ask the gate of the project the
 * path belongs to. The gate stays the one home of the rules (root, secrets, protected folders);
 * this module only lets `text/`, which sits below `security/`, reach it.
 */
import { sep } from "node:path";

export interface Gate {
  /**
   * Throws an AppError when `realAbs` (a real path: no links in it) may not be read, or, with
   * `write`, written. `display` names the path as the caller spelled it, for the message.
   */
  admit(realAbs: string, display: string, write: boolean): void;
}

/** Root (a realpath) → the gate of the project most recently opened there. */
const gates = new Map<string, Gate>();

/**
 * Called by every sandbox for its root. A later sandbox for the same root (the project activated
 * again, with new rules) replaces the earlier one: the newest rules are the ones in force.
 */
export function registerGate(root: string, gate: Gate): void {
  gates.set(root, gate);
}

/** The gate of the deepest registered root that holds `abs` lexically; undefined outside every project. */
export function gateFor(abs: string): Gate | undefined {
  let best: { root: string; gate: Gate } | undefined;
  for (const [root, gate] of gates) {
    const holds = abs === root || abs.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
    if (holds && (best === undefined || root.length > best.root.length)) best = { root, gate };
  }
  return best?.gate;
}
