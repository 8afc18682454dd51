/**
 * Peak memory: this process's own, and a child's through an `--import` that prints its `maxRSS` at exit
 * (with the reading of it).
 */
import { readFileSync } from "node:fs";

/**
 * This process's own peak RSS in MB: VmHWM from /proc/self/status where there is one, else getrusage's
 * maxRSS. On Linux maxRSS survives fork and exec: a child spawned by a process holding 3 GB reports at
 * least those 3 GB however little it holds itself (the speed benchmark's reopen, spawned while the
 * measuring process held exact search's copy of the vectors, reported the two together); VmHWM starts
 * anew with the program.
 */
export function ownPeakRssMb(): number {
  try {
    const kb = Number(/^VmHWM:\s+(\d+) kB$/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? Number.NaN);
    if (Number.isFinite(kb)) return Math.round(kb / 1024);
  } catch {
    // No /proc here: getrusage's figure follows.
  }
  return Math.round(process.resourceUsage().maxRSS / 1024);
}

/** Prints the child's peak RSS (KiB) on stderr at exit. */
export const PEAK_RSS_IMPORT = `data:text/javascript,${encodeURIComponent(`process.on("exit", () => process.stderr.write("peak-rss-kb " + process.resourceUsage().maxRSS + "\\n"));`)}`;

/** The peak RSS in MB that a child printed through PEAK_RSS_IMPORT (NaN when it printed none). */
export function peakRssMb(stderr: string): number {
  const kb = Number(/peak-rss-kb (\d+)/.exec(stderr)?.[1] ?? Number.NaN);
  return Math.round(kb / 102.4) / 10;
}
