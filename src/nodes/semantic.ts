import type { GraphDependencies } from "../graph/dependencies.js";
import type { ViewTask } from "../graph/state.js";
import { acrossNamespaces, runView, searchOptionsFor } from "./run-view.js";

/**
 * Semantic view: every query of the round embedded in one batched call, then dense search per
 * query and namespace, hits under the absolute similarity threshold dropped. Queries and entries the
 * embedder cannot represent (CJK for an English-only model) are left to the other views. The
 * embedding and the searches are raced against the run's deadline by runView: a hung embedder
 * (whose calls take no signal) costs this view its hits, not the run its answer.
 */
export function semanticNode(dependencies: () => Promise<GraphDependencies>) {
  return async (task: ViewTask) =>
    runView("semantic", task, async () => {
      const { store, embedder } = await dependencies();
      const queries = task.queries.filter((query) => embedder.trustworthyFor(query));
      if (queries.length === 0) return [];
      const vectors = await embedder.embeddings.embedDocuments(queries);
      return acrossNamespaces(task, queries, async (namespace, query, index) => {
        const hits = await store.denseSearch(namespace, vectors[index] ?? [], searchOptionsFor(task, query, task.settings.semanticTopK));
        // An entry the embedder cannot represent has a meaningless score (USE-lite gives all CJK text one vector).
        return hits.filter((hit) => hit.score >= task.settings.denseMinScore && embedder.trustworthyFor(hit.entry.text));
      });
    });
}
