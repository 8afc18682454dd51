/**
 * The one way a wait is bounded: a signal that aborts after a time (or with the caller's own), and a
 * race that gives up on work that ignores signals (a hung store, a fake model). Used by the run's
 * deadline and by each model call's timeout.
 */

/** A signal aborted with `reason()` after `ms` (never, for an infinite `ms`) or when `outer` aborts; `disarm` clears its timer. */
export function abortAfter(ms: number, reason: () => Error, outer?: AbortSignal): { signal: AbortSignal; disarm: () => void } {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  if (ms <= 0) controller.abort(reason());
  // An infinite delay would overflow setTimeout (which then fires at once): no limit, no timer.
  else if (Number.isFinite(ms)) timer = setTimeout(() => controller.abort(reason()), ms);
  const signal = outer ? AbortSignal.any([outer, controller.signal]) : controller.signal;
  return { signal, disarm: () => clearTimeout(timer) };
}

/** Settles as `work` does, or rejects with the signal's reason once it aborts; the listener goes either way. */
export async function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) throw signal.reason;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([work, aborted]);
  } finally {
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}
