import type { RunnableConfig } from "@langchain/core/runnables";
import { resolveConfiguration } from "../graph/configuration.js";
import type { RetrievalStateValue } from "../graph/state.js";
import { timed } from "../graph/timing.js";
import { fuseRankedLists } from "../retrieval/fusion.js";

/** Fuses every view's ranked lists of every round so far into one de-duplicated ranking. */
export function mergeNode() {
  return async (state: RetrievalStateValue, config?: RunnableConfig) =>
    timed("merge", async () => {
      const settings = resolveConfiguration(config);
      return {
        fused: fuseRankedLists(state.viewHits, {
          method: settings.fusion,
          rrfK: settings.rrfK,
          weights: settings.viewWeights,
        }),
      };
    });
}
