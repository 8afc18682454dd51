import type { GraphDependencies } from "../graph/dependencies.js";
import type { ViewTask } from "../graph/state.js";
import { acrossNamespaces, runView } from "./view-output.js";

/**
 * Lexical view: BM25 over the plan's keywords on the first round (the question when there are
 * none), over each gap query afterwards. Hits scoring under best x lexicalMinRelative are dropped:
 * BM25 scores have no absolute scale, so the threshold is relative to the best hit.
 */
export function lexicalNode(dependencies: () => Promise<GraphDependencies>) {
  return async (task: ViewTask) =>
    runView("lexical", task, async () => {
      const { store } = await dependencies();
      const queries = task.round === 0 ? [firstRoundQuery(task)] : task.queries;
      return acrossNamespaces(task, queries, async (namespace, query) => {
        const hits = await store.lexicalSearch(namespace, query, { k: task.settings.lexicalTopK });
        const best = hits[0]?.score ?? 0;
        return hits.filter((hit) => hit.score >= best * task.settings.lexicalMinRelative);
      });
    });
}

function firstRoundQuery(task: ViewTask): string {
  const keywords = [...task.plan.persons, ...task.plan.entities, ...task.plan.locations, ...task.plan.keywords];
  return keywords.length ? [...new Set(keywords)].join(" ") : task.question;
}
