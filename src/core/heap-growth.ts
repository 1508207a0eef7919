/**
 * How far V8 lets scalpel's heap grow past what a full collection left live: 20%. V8's own factor
 * goes up to 4× on a small heap, and a burst of short-lived objects (a first find_referencing_symbols
 * reads, splits and parses thousands of site files) left the heap's pages committed long after:
 * measured on the generated 5k-file project (native backend, warm restart), scalpel's RSS rose from
 * ~110 MB to 290–370 MB on that call with V8's default and to ~230 MB with 20%, the call's time
 * within the machine's noise. It bounds no size: a project that needs more heap gets it, after one
 * more collection. Read by V8 at every collection, so set at start-up it holds.
 *
 * Set by launch.ts before it compiles the bundle: V8 checks a code cache against the flags, so the
 * bundle's cache (written at the end of a run) and TypeScript's (scripts/bundle.mjs passes these
 * flags to the node that makes it; it reads them here) are made and used with the same flags.
 */
import { setFlagsFromString } from "node:v8";

export const heapFlags = "--heap-growing-percent=20";

setFlagsFromString(heapFlags);
