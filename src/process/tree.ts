/**
 * What the processes below a language server are doing, read from Linux's /proc: a server is a
 * tree (a wrapper may run its work in a child process), and the wrapper staying up says nothing
 * about the child that answers. Elsewhere there is no /proc to read: the readers return undefined
 * and only the direct child's exit is seen.
 *
 * Cost, measured on a 3-process, ~20-thread server tree (a wrapper and its worker; the adapter that
 * declares that worker in `essentialProcesses` says which): one `descendants` walk 0.3 ms, one
 * `processState` read a few µs.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";

export interface TreeProcess {
  pid: number;
  /** The kernel's one-letter state: R/S/D running or waiting, T/t stopped, Z exited but not reaped. */
  state: string;
  /** argv joined by spaces (empty for kernel threads or when unreadable). */
  commandLine: string;
}

export const canReadProcessTree = process.platform === "linux";

/** Fields after the parenthesised command name of /proc/<pid>/stat: state, ppid, … */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/** The process's state letter, or undefined once it is gone (or /proc cannot tell). */
export function processState(pid: number): string | undefined {
  if (!canReadProcessTree) return undefined;
  return statFields(pid)?.[0];
}

function commandLineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0+$/, "").replaceAll("\0", " ");
  } catch {
    return "";
  }
}

/** Whether the kernel has /proc/<pid>/task/<tid>/children (CONFIG_PROC_CHILDREN); checked once. */
let childrenFiles: boolean | undefined;

/** Direct children of `pid` from /proc/<pid>/task/<tid>/children (every thread may have forked). */
function childrenOf(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const tid of tasks) {
    try {
      const text = readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8");
      for (const c of text.split(" ")) if (c.trim() !== "") out.push(Number(c));
    } catch {
      // The thread ended while we looked.
    }
  }
  return out;
}

/** Parent → children from every /proc/<pid>/stat: the slow way, for kernels without `children`. */
function childrenByScan(): Map<number, number[]> {
  const map = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const ppid = Number(statFields(Number(entry))?.[1]);
    if (!Number.isFinite(ppid)) continue;
    const list = map.get(ppid) ?? [];
    list.push(Number(entry));
    map.set(ppid, list);
  }
  return map;
}

/** Every process below `rootPid` (itself excluded), parents before children; undefined off Linux. */
export function descendants(rootPid: number): TreeProcess[] | undefined {
  if (!canReadProcessTree) return undefined;
  childrenFiles ??= existsSync(`/proc/self/task/${process.pid}/children`);
  const scanned = childrenFiles ? undefined : childrenByScan();
  const kids = (pid: number): number[] => (scanned ? (scanned.get(pid) ?? []) : childrenOf(pid));
  const out: TreeProcess[] = [];
  const seen = new Set<number>([rootPid]);
  const queue = [rootPid];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    for (const child of kids(pid)) {
      if (seen.has(child)) continue;
      seen.add(child);
      const state = statFields(child)?.[0];
      if (state === undefined) continue; // ended while we looked
      out.push({ pid: child, state, commandLine: commandLineOf(child) });
      queue.push(child);
    }
  }
  return out;
}
