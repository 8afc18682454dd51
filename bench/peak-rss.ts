/**
 * Peak memory: this process's own, and a child's through an `--import` that prints it at exit (with the
 * reading of it). Both read it the same way (ownPeakRssKb).
 */
import { readFileSync } from "node:fs";

/**
 * This process's own peak RSS in KiB: VmHWM from /proc/self/status where there is one, else getrusage's
 * maxRSS. On Linux maxRSS survives fork and exec: a child spawned by a process holding 3 GB reports at
 * least those 3 GB however little it holds itself (the speed benchmark's reopen, spawned while the
 * measuring process held exact search's copy of the vectors, reported the two together); VmHWM starts
 * anew with the program.
 */
export function ownPeakRssKb(): number {
  try {
    const kb = Number(/^VmHWM:\s+(\d+) kB$/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? Number.NaN);
    if (Number.isFinite(kb)) return kb;
  } catch {
    // No /proc here: getrusage's figure follows.
  }
  return process.resourceUsage().maxRSS;
}

/** This process's own peak RSS in MB (ownPeakRssKb). */
export function ownPeakRssMb(): number {
  return Math.round(ownPeakRssKb() / 1024);
}

/** Prints the child's own peak RSS (KiB, as ownPeakRssKb reads it) on stderr at exit. */
export const PEAK_RSS_IMPORT = `data:text/javascript,${encodeURIComponent(
  `import { readFileSync } from "node:fs";\n${ownPeakRssKb.toString()}\nprocess.on("exit", () => process.stderr.write("peak-rss-kb " + ownPeakRssKb() + "\\n"));`,
)}`;

/** The peak RSS in MB that a child printed through PEAK_RSS_IMPORT (NaN when it printed none). */
export function peakRssMb(stderr: string): number {
  const kb = Number(/peak-rss-kb (\d+)/.exec(stderr)?.[1] ?? Number.NaN);
  return Math.round(kb / 102.4) / 10;
}
