import type { Plan } from "../domain/plan.js";
import { makePlan } from "./plan.js";

/** Planning switched off: the question is the only query and no conditions are extracted. */
export function planWithoutPlanning(question: string): Plan {
  return makePlan({ requiredInfo: [], subQueries: [question], keywords: [], persons: [], entities: [], locations: [], planner: "off" }, undefined);
}
