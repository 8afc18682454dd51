/** A child process's peak memory: an `--import` that prints its `maxRSS` at exit, and the reading of it. */

/** Prints the child's peak RSS (KiB) on stderr at exit. */
export const PEAK_RSS_IMPORT = `data:text/javascript,${encodeURIComponent(`process.on("exit", () => process.stderr.write("peak-rss-kb " + process.resourceUsage().maxRSS + "\\n"));`)}`;

/** The peak RSS in MB that a child printed through PEAK_RSS_IMPORT (NaN when it printed none). */
export function peakRssMb(stderr: string): number {
  const kb = Number(/peak-rss-kb (\d+)/.exec(stderr)?.[1] ?? Number.NaN);
  return Math.round(kb / 102.4) / 10;
}
