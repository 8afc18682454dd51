import { SingleBar } from "cli-progress";

export interface StageProgressBar {
  /** Reports `done` of `total` for a stage; a new label starts a new stage (its total and rate). */
  update(label: string, done: number, total: number): void;
  stop(): void;
}

/**
 * One progress bar on stderr for work that runs in labelled stages (ingest: building then writing
 * each namespace; eval: embedding, ingest, each retriever), with the stage's rate. Only on a
 * terminal: piped or captured output (and `--json`) stays free of control characters.
 */
export function stageProgressBar(enabled: boolean): StageProgressBar {
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
    update(label, done, total) {
      if (stage === undefined) bar.start(total, 0, { label, rate: "" });
      if (label !== stage) {
        stage = label;
        stageStarted = performance.now();
        bar.setTotal(total);
      }
      const perSecond = done / Math.max(0.001, (performance.now() - stageStarted) / 1000);
      bar.update(done, { label, rate: `${perSecond.toFixed(0)}/s` });
    },
    stop() {
      if (stage !== undefined) bar.stop();
    },
  };
}
