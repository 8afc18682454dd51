export { findTimeExpressions, findTimeWindow } from "./window.js";
// resolveRelativeDates: next commit (src/time/rewrite.ts)
export {
  GRANULARITIES,
  GranularitySchema,
  LocaleSchema,
  TimeContextSchema,
  TimeWindowSchema,
  type Granularity,
  type Locale,
  type LocatedTimeWindow,
  type TimeContext,
  type TimeWindow,
} from "./types.js";
