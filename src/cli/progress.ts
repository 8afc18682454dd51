import { SingleBar } from "cli-progress";
import type { IngestProgress } from "../ingest/index.js";

export interface IngestProgressDisplay {
  update(progress: IngestProgress): void;
  stop(): void;
}

/**
 * A progress bar on stderr while an ingest runs, only on a terminal: piped or captured output (and
 * `--json`) stays free of control characters.
 */
export function ingestProgressDisplay(enabled: boolean): IngestProgressDisplay {
  if (!enabled) return { update: () => {}, stop: () => {} };
  const bar = new SingleBar({
    stream: process.stderr,
    format: " {phase} {namespace} [{bar}] {value}/{total}",
    barsize: 30,
    hideCursor: true,
    clearOnComplete: true,
    etaBuffer: 50,
  });
  let started = false;
  let current = "";
  return {
    update(progress) {
      const phase = progress.phase === "build" ? "building" : "writing ";
      const payload = { phase, namespace: progress.namespace };
      const stage = `${progress.phase}\u001f${progress.namespace}`;
      if (!started) {
        bar.start(progress.total, progress.done, payload);
        started = true;
      } else if (stage !== current) {
        bar.setTotal(progress.total);
      }
      current = stage;
      bar.update(progress.done, payload);
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
