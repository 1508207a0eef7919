/**
 * The memory of the daemon's language servers, for `scalpel doctor` and the daemon bench: the sum
 * of the resident sets of every process below the daemon (its servers and their workers), read
 * from Linux's /proc; 0 where there is none to read.
 */
import { residentBytes } from "../process/resident.js";
import { descendants } from "../process/tree.js";

export function descendantsRssBytes(pid: number): number {
  return (descendants(pid) ?? []).reduce((sum, p) => sum + (residentBytes(p.pid) ?? 0), 0);
}
