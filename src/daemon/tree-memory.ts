/**
 * The memory of the daemon's language servers, for `scalpel doctor` and the daemon bench: the sum
 * of the resident sets of every process below the daemon (its servers and their workers), read
 * from Linux's /proc; 0 where there is none to read.
 */
import { readFileSync } from "node:fs";
import { descendants } from "../process/tree.js";

function rssBytes(pid: number): number {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    // Ended meanwhile.
    return 0;
  }
}

export function descendantsRssBytes(pid: number): number {
  return (descendants(pid) ?? []).reduce((sum, p) => sum + rssBytes(p.pid), 0);
}
