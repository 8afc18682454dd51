import { RecallGraphError } from "../core/errors.js";
import { abortAfter, untilAborted } from "../core/time-limit.js";

/**
 * A run's deadline: the wall-clock moment (epoch ms) after which the graph answers with what it has,
 * and the configured length, to name it in degradation records. The plan node sets `deadlineAt` when
 * it resolves the settings; every later node reads it from there, so the whole run shares one clock.
 */
export interface RunDeadline {
  at: number;
  ms: number;
}

/** What a missed deadline throws: its message is what the degradation record says. */
export class DeadlineError extends RecallGraphError {
  constructor(readonly deadlineMs: number) {
    super("deadline_reached", `deadline of ${deadlineMs} ms reached`, { deadlineMs });
  }
}

/** The deadline of a run whose settings the plan node resolved; without `deadlineAt` (settings built by hand) there is none. */
export function deadlineOf(settings: { deadlineAt?: number | undefined; deadlineMs: number }): RunDeadline {
  return { at: settings.deadlineAt ?? Number.POSITIVE_INFINITY, ms: settings.deadlineMs };
}

/** A deadline `ms` from now. */
export function deadlineFrom(ms: number, now = Date.now()): RunDeadline {
  return { at: now + ms, ms };
}

export function timeLeft(deadline: RunDeadline): number {
  return deadline.at - Date.now();
}

export function pastDeadline(deadline: RunDeadline): boolean {
  return timeLeft(deadline) <= 0;
}

/**
 * Half the time left, same name in messages: for a step whose failure has a fallback (a plan by the
 * rules, matches ranked newest first), so a hung callee leaves the other half to the steps that have none.
 */
export function halfwayTo(deadline: RunDeadline): RunDeadline {
  const left = timeLeft(deadline);
  return Number.isFinite(left) ? { at: Date.now() + Math.max(0, left) / 2, ms: deadline.ms } : deadline;
}

/** A signal aborted at the deadline (or by `outer`), and the way to clear its timer so nothing keeps the process alive. */
function armed(deadline: RunDeadline, outer: AbortSignal | undefined): { signal: AbortSignal; disarm: () => void } {
  return abortAfter(timeLeft(deadline), () => new DeadlineError(deadline.ms), outer);
}

/**
 * Runs `work` and races it against the deadline: a callee that never settles (a store or an embedder
 * that ignores signals) is left behind and DeadlineError thrown. `work` gets the signal, for callees
 * that honour one. Past the deadline `work` is not started.
 */
export async function withinDeadline<T>(deadline: RunDeadline, work: (signal: AbortSignal) => Promise<T>, outer?: AbortSignal): Promise<T> {
  const { signal, disarm } = armed(deadline, outer);
  try {
    if (signal.aborted) throw signal.reason;
    return await untilAborted(work(signal), signal);
  } finally {
    disarm();
  }
}

/**
 * Runs `work` with a signal aborted at the deadline, without racing it: for callees that honour the
 * signal and turn the abort into their own fallback (the structured model call answers `{ok: false}`
 * and the rules stand in), which a race would cut off.
 */
export async function withDeadlineSignal<T>(deadline: RunDeadline, work: (signal: AbortSignal) => Promise<T>, outer?: AbortSignal): Promise<T> {
  const { signal, disarm } = armed(deadline, outer);
  try {
    return await work(signal);
  } finally {
    disarm();
  }
}
