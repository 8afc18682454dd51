/** Shared assertion for the time tests: one expression in, one exact window out. */
import assert from "node:assert/strict";
import { findTimeWindow, TimeWindowSchema, type Granularity, type TimeContext } from "../../src/time/index.js";

export interface WindowCase {
  text: string;
  /** ISO UTC of the inclusive start, or null for an open start. */
  start: string | null;
  /** ISO UTC of the exclusive end, or null for an open end. */
  end: string | null;
  granularity: Granularity;
  /** The matched text, when it matters. */
  expression?: string;
}

export function assertWindow(context: TimeContext, expected: WindowCase): void {
  const window = findTimeWindow(expected.text, context);
  assert.ok(window, `no window for ${JSON.stringify(expected.text)}`);
  TimeWindowSchema.parse(window);
  const label = `${JSON.stringify(expected.text)} in ${context.timeZone ?? "UTC"}`;
  assert.equal(window.startMs, expected.start === null ? undefined : Date.parse(expected.start), `${label}: startMs (got ${window.start})`);
  assert.equal(window.endMs, expected.end === null ? undefined : Date.parse(expected.end), `${label}: endMs (got ${window.end})`);
  assert.equal(window.start, expected.start ?? undefined, `${label}: start`);
  assert.equal(window.end, expected.end ?? undefined, `${label}: end`);
  assert.equal(window.granularity, expected.granularity, `${label}: granularity`);
  if (expected.expression !== undefined) assert.equal(window.expression, expected.expression, `${label}: expression`);
}
