/**
 * Resolves on the next turn of the event loop, after pending I/O and due timers.
 *
 * The embedded store and the offline embedders answer synchronously, so a chain of awaits over them
 * resolves as microtasks and never gives the event loop a turn: an application embedding recallgraph
 * would see its own sockets, timers and the run's deadline wait until a whole burst of questions is
 * done. Long synchronous work awaits this between its steps (each view's searches, an index build's
 * slices): one turn costs microseconds.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
