import { z } from "zod";
import type { GraphDependencies } from "../runtime/dependencies.js";
import type { ViewTask } from "../graph/state.js";
import { separationEvidence } from "../retrieval/list-evidence.js";
import { SeparationRampSchema, type SeparationRamp } from "../text/embedders/profiles.js";
import { vectorQueryOf } from "../planning/known-names.js";
import { acrossNamespaces, runView, searchOptionsFor, type ViewUpdate } from "./run-view.js";
import { defineView, type ViewSettings } from "./view-definition.js";

const FIELDS = {
  semanticTopK: z.number().int().min(1).max(1000).default(25).describe("Dense hits per sub-query"),
  denseMinScore: z.number().min(-1).max(1).default(0).describe("Absolute cosine threshold for dense hits"),
  // Off by default: on conversations the dense view earns its weight even where its first hit does
  // not stand out (LoCoMo's multi-hop and open-domain questions lost recall with any ramp tried).
  // "embedder": the ramp the embedder's profile gives, since a ramp that helps a weak embedder costs a
  // retrieval-trained one (text/embedders/profiles.ts).
  denseSeparation: z
    .union([SeparationRampSchema, z.literal("embedder")])
    .default({ from: 0, to: 0 })
    .describe(
      "How much of its weight a dense list earns for a query, from how far its first score stands out from the rest of the list (z-score); from = to = 0 always gives the full weight; \"embedder\": the ramp the embedder's profile gives (none for a retrieval-trained one)",
    ),
};
const SETTLED = {
  denseSeparation: SeparationRampSchema.describe("The dense lists' separation ramp for this run, the embedder's profile's when configured as \"embedder\""),
  semanticWeightWithoutNames: z
    .number()
    .min(0)
    .describe("The semantic weight for a question over a conversation that names no person: the configured weight where one is set, else the embedder's profile's (denseWeightWithoutNames)"),
};
type Own = ViewSettings<typeof FIELDS, typeof SETTLED>;

/** A ramp that gives every dense list its full vote. */
const FULL_VOTE: SeparationRamp = { from: 0, to: 0 };

/**
 * Semantic view: every query of the round embedded in one batched call, without the persons the plan
 * asks about (vectorQueryOf), then dense search per query and namespace, hits under the absolute
 * similarity threshold dropped. Queries and entries the embedder cannot represent (CJK for an
 * English-only model) are left to the other views. The embedding and the searches are raced against
 * the run's deadline by runView: a hung embedder (whose calls take no signal) costs this view its
 * hits, not the run its answer.
 */
function semanticSearch(dependencies: () => Promise<GraphDependencies>, task: ViewTask, own: Own): Promise<ViewUpdate> {
  return runView("semantic", task, async () => {
    const { store, embedder } = await dependencies();
    const queries = task.queries.filter((query) => embedder.trustworthyFor(query));
    if (queries.length === 0) return [];
    const vectors = await embedder.embeddings.embedDocuments(queries.map((query) => vectorQueryOf(query, task.plan.persons)));
    return acrossNamespaces(task, queries, async (namespace, query, index) => {
      const hits = await store.denseSearch(namespace, vectors[index] ?? [], searchOptionsFor(task, query, own.semanticTopK));
      // An entry the embedder cannot represent has a meaningless score (USE-lite gives all CJK text one vector).
      return hits.filter((hit) => hit.score >= own.denseMinScore && embedder.trustworthyFor(hit.entry.text));
    });
  });
}

/**
 * Dense similarity, weighed by the embedder that built the vectors: its weight and separation ramp
 * come from the embedder's profile unless configured. A list earns its weight by its own evidence:
 * the first of a weak embedder's neighbours, when it scores like the rest, is no better a guess than
 * the tenth. Over a conversation, a question that names no person weighs it by the profile's
 * denseWeightWithoutNames: no name narrows the words the other views match (profiles.ts says why).
 */
export const semanticView = defineView({
  name: "semantic",
  weight: z
    .number()
    .min(0)
    .max(10)
    .optional()
    .describe("Unset: the embedder's profile says (text/embedders/profiles.ts: 0.3 for the offline USE-lite, 0.7 for an ONNX model in process, 1 for OpenAI-compatible models)"),
  fields: FIELDS,
  settled: SETTLED,
  rounds: "every",
  votesByScore: true,
  search: semanticSearch,
  settle: (weight, own, embedder) => ({
    weight: weight ?? embedder.denseWeight,
    own: {
      ...own,
      denseSeparation: own.denseSeparation === "embedder" ? (embedder.denseSeparation ?? FULL_VOTE) : own.denseSeparation,
      semanticWeightWithoutNames: weight ?? embedder.denseWeightWithoutNames ?? embedder.denseWeight,
    },
  }),
  // A question nobody planned names no one only because no one looked: it keeps the usual weight.
  weightFor: ({ plan, spoken }, weight, own) => (spoken && plan.planner !== "off" && plan.persons.length === 0 ? own.semanticWeightWithoutNames : weight),
  evidence: (list, own) =>
    separationEvidence(
      list.hits.map((hit) => hit.score),
      own.denseSeparation,
    ),
});
