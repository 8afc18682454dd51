export { findTimeExpressions, findTimeWindow } from "./window.js";
export { resolveRelativeDates } from "./rewrite.js";
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
