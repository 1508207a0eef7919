/**
 * A process's resident set as Linux's /proc reports it: VmRSS (now) or VmHWM (its peak). One home
 * for `scalpel doctor`'s daemon memory and the benches' memory figures.
 */
import { readFileSync } from "node:fs";

/** `field` of /proc/<pid>/status in bytes; undefined when there is none to read (ended, not Linux). */
export function residentBytes(pid: number, field: "VmRSS" | "VmHWM" = "VmRSS"): number | undefined {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    // Ended meanwhile, or no /proc.
    return undefined;
  }
}
