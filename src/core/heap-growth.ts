/**
 * How far V8 lets scalpel's heap grow past what a full collection left live: 20% (imported first
 * by cli.ts, so every mode, the daemon too, runs with it). V8's own factor goes up to 4× on a small
 * heap, and a burst of short-lived objects (a first find_referencing_symbols reads, splits and
 * parses thousands of site files) left the heap's pages committed long after: measured on the
 * generated 5k-file project (native backend, warm restart), scalpel's RSS rose from ~110 MB to
 * 290–370 MB on that call with V8's default and to ~230 MB with 20%, at no measured cost in the
 * call's time (the machine's noise was larger). It bounds no size: a project that needs more heap
 * gets it, after one more collection. Read by V8 at every collection, so set at start-up it holds.
 */
import { setFlagsFromString } from "node:v8";

export const heapGrowingPercent = 20;

setFlagsFromString(`--heap-growing-percent=${heapGrowingPercent}`);
