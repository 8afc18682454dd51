import { SingleBar } from "cli-progress";

/** A rate (and so a time left) is shown only after this long: before it, one fast batch reads as 64000/s. */
export const RATE_AFTER_MS = 1000;
/** ...and after this many items: a rate of one item is the time of one item, not a rate. */
export const RATE_AFTER_ITEMS = 3;

/** What a progress line shows: counts, time taken, and (once it can be known) rate and time left. */
export interface ProgressFigures {
  done: number;
  total: number;
  elapsedSeconds: number;
  /** Items per second over the span the rate is taken over; absent until it can be known. */
  perSecond?: number;
  /** Seconds until `total` at that rate; absent with it. */
  secondsLeft?: number;
}

/** A count seen at a moment: `done` items when `elapsedMs` had passed. */
export interface ProgressPoint {
  done: number;
  elapsedMs: number;
}

/**
 * The figures of a progress line at `done` of `total` after `elapsedMs` (the whole job's time). The
 * rate is taken from `rateFrom` (default the start: 0 items at 0 ms), the first report of the stage
 * that `done` counts: what came before it (opening, parsing, the first batch in flight) is no
 * measure of how fast items go, and counting it would make the first time left far too long.
 */
export function progressFigures(progress: { done: number; total: number; elapsedMs: number; rateFrom?: ProgressPoint }): ProgressFigures {
  const { done, total, elapsedMs } = progress;
  const from = progress.rateFrom ?? { done: 0, elapsedMs: 0 };
  const figures: ProgressFigures = { done, total, elapsedSeconds: Math.max(0, elapsedMs) / 1000 };
  const items = done - from.done;
  const spanMs = elapsedMs - from.elapsedMs;
  if (spanMs < RATE_AFTER_MS || items < RATE_AFTER_ITEMS) return figures;
  figures.perSecond = items / (spanMs / 1000);
  figures.secondsLeft = Math.max(0, total - done) / figures.perSecond;
  return figures;
}

/** "12 s elapsed, 40 s left, 98/s"; before a rate is known, only the time elapsed. */
export function describeFigures(figures: ProgressFigures): string {
  const parts = [`${formatDuration(figures.elapsedSeconds)} elapsed`];
  if (figures.secondsLeft !== undefined) parts.push(`${formatDuration(figures.secondsLeft)} left`);
  if (figures.perSecond !== undefined) parts.push(`${figures.perSecond < 10 ? figures.perSecond.toFixed(1) : Math.round(figures.perSecond)}/s`);
  return parts.join(", ");
}

/** "7 s", "4 m 05 s", "2 h 03 m": whole seconds, the largest two units. */
export function formatDuration(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  if (whole < 60) return `${whole} s`;
  const minutes = Math.floor(whole / 60);
  if (minutes < 60) return `${minutes} m ${String(whole % 60).padStart(2, "0")} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, "0")} m`;
}

export interface StageProgressBar {
  /** Reports `done` of `total` for a stage; a new label starts a new stage (its total and rate). */
  update(label: string, done: number, total: number): void;
  stop(): void;
}

/**
 * One progress bar on stderr for work that runs in labelled stages (eval: embedding, ingest, each
 * retriever), with the stage's rate once it can be known. Only on a terminal: piped or captured output
 * (and `--json`) stays free of control characters.
 */
export function stageProgressBar(enabled: boolean): StageProgressBar {
  if (!enabled) return { update: () => {}, stop: () => {} };
  const bar = terminalBar();
  let stage: string | undefined;
  let stageStarted = 0;
  let stageFirst: ProgressPoint = { done: 0, elapsedMs: 0 };
  return {
    update(label, done, total) {
      if (stage === undefined) bar.start(total, 0, { label, figures: "" });
      if (label !== stage) {
        stage = label;
        stageStarted = performance.now();
        stageFirst = { done, elapsedMs: 0 };
        bar.setTotal(total);
      }
      const figures = progressFigures({ done, total, elapsedMs: performance.now() - stageStarted, rateFrom: stageFirst });
      bar.update(done, { label, figures: figures.perSecond === undefined ? "" : describeFigures(figures) });
    },
    stop() {
      if (stage !== undefined) bar.stop();
    },
  };
}

/** One update of a whole job: its phase (what `done` and `total` count), and what is at work now. */
export interface JobProgress {
  phase: string;
  /** Shown beside the phase; a change does not restart anything (e.g. the namespace being written). */
  detail?: string;
  done: number;
  total: number;
}

export interface JobProgressBar {
  update(progress: JobProgress): void;
  stop(): void;
}

/**
 * A progress bar for a whole job (ingest): done of all, time elapsed since the bar was made, and time
 * left once it can be known. Counts and rate restart only when the phase does (building, then writing),
 * never for each namespace. Only on a terminal, like stageProgressBar.
 */
export function jobProgressBar(enabled: boolean): JobProgressBar {
  if (!enabled) return { update: () => {}, stop: () => {} };
  const bar = terminalBar();
  const started = performance.now();
  let phase: string | undefined;
  let phaseFirst: ProgressPoint = { done: 0, elapsedMs: 0 };
  return {
    update(progress) {
      const elapsedMs = performance.now() - started;
      const label = progress.detail ? `${progress.phase} ${progress.detail}` : progress.phase;
      if (phase === undefined) bar.start(progress.total, 0, { label, figures: "" });
      if (progress.phase !== phase) {
        phase = progress.phase;
        phaseFirst = { done: progress.done, elapsedMs };
        bar.setTotal(progress.total);
      }
      const figures = progressFigures({ done: progress.done, total: progress.total, elapsedMs, rateFrom: phaseFirst });
      bar.update(progress.done, { label, figures: describeFigures(figures) });
    },
    stop() {
      if (phase !== undefined) bar.stop();
    },
  };
}

function terminalBar(): SingleBar {
  return new SingleBar({
    stream: process.stderr,
    format: " {label} [{bar}] {value}/{total} {figures}",
    barsize: 30,
    hideCursor: true,
    clearOnComplete: true,
  });
}
