import { SingleBar } from "cli-progress";
import type { EvalProgress } from "../eval/run.js";

export interface EvalProgressDisplay {
  update(progress: EvalProgress): void;
  stop(): void;
}

/**
 * A progress bar on stderr for each phase of an evaluation (embedding, ingest, asking each
 * retriever), with its rate; only on a terminal, so piped output and `--json` stay clean.
 */
export function evalProgressDisplay(enabled: boolean): EvalProgressDisplay {
  if (!enabled) return { update: () => {}, stop: () => {} };
  const bar = new SingleBar({
    stream: process.stderr,
    format: " {label} [{bar}] {value}/{total} {rate}",
    barsize: 30,
    hideCursor: true,
    clearOnComplete: true,
  });
  let stage: string | undefined;
  let stageStarted = 0;
  return {
    update(progress) {
      const label = progress.label ? `${progress.phase}: ${progress.label}` : progress.phase;
      if (stage === undefined) bar.start(progress.total, 0, { label, rate: "" });
      if (label !== stage) {
        stage = label;
        stageStarted = performance.now();
        bar.setTotal(progress.total);
      }
      const perSecond = progress.done / Math.max(0.001, (performance.now() - stageStarted) / 1000);
      bar.update(progress.done, { label, rate: `${perSecond.toFixed(0)}/s` });
    },
    stop() {
      if (stage !== undefined) bar.stop();
    },
  };
}
