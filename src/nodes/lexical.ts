import { z } from "zod";
import type { GraphDependencies } from "../runtime/dependencies.js";
import type { ViewTask } from "../graph/state.js";
import { withoutNames } from "../planning/known-names.js";
import { yieldingEvidence } from "../retrieval/list-evidence.js";
import { withoutRelativeTime } from "../retrieval/query-words.js";
import { LexicalYieldSchema, type LexicalYield } from "../text/embedders/profiles.js";
import { acrossNamespaces, gapConditionOf, runView, searchOptionsFor, type ViewSearch, type ViewUpdate } from "./run-view.js";
import { defineView, type ViewSettings } from "./view-definition.js";

/**
 * A word in over half a namespace weighs almost nothing in BM25 (its idf is floored at a millionth,
 * text/bm25.ts), but a hit that matched only such a word would still take a rank, and a rank's full
 * vote in the fusion: over a person's notes that nearly all name Dana, "Where does Dana work?" would
 * rank them all after the one that says where she works, and the semantic view's first guess would
 * pass it. So under a ten-thousandth of the best score a hit casts no vote. It stays a candidate: in a
 * small namespace the word that matters is often in over half the memories, and a dropped hit would
 * not be returned at all.
 */
const VOTE_MIN_RELATIVE = 1e-4;

const FIELDS = {
  lexicalTopK: z.number().int().min(1).max(1000).default(25).describe("BM25 hits per query"),
  lexicalMinRelative: z.number().min(0).max(1).default(0).describe("Drop BM25 hits below best score x this"),
  lexicalVoteMinRelative: z
    .number()
    .min(0)
    .max(1)
    .default(VOTE_MIN_RELATIVE)
    .describe(
      "BM25 hits below best score x this are kept but cast no vote in the fusion (default 1e-4: hits that match only words in over half the namespace, when a hit matches a rarer one; 0: every hit votes)",
    ),
  lexicalYield: z
    .union([LexicalYieldSchema, z.literal("embedder")])
    .default("embedder")
    .describe(
      "How much of its weight a BM25 list keeps where its first score does not stand out from the rest (z-score ramp); \"embedder\": what the embedder's profile says (a retrieval-trained one takes half the vote of a flat list; a weak one takes none)",
    ),
};
const SETTLED = {
  lexicalYield: LexicalYieldSchema.describe("The BM25 lists' yield for this run, the embedder's profile's when configured as \"embedder\""),
};
type Own = ViewSettings<typeof FIELDS, typeof SETTLED>;

/** Every BM25 list keeps its whole vote. */
export const NO_YIELD: LexicalYield = { ramp: { from: 0, to: 0 }, kept: 1 };

/**
 * Lexical view: BM25 over the question and the plan's keywords on the first round, over each gap
 * query afterwards. Hits scoring under best x lexicalMinRelative are dropped, and under best x
 * lexicalVoteMinRelative kept without a vote: BM25 scores have no absolute scale, so both thresholds
 * are relative to the best hit.
 */
function lexicalSearch(dependencies: () => Promise<GraphDependencies>, task: ViewTask, own: Own): Promise<ViewUpdate> {
  return runView("lexical", task, async () => {
    const { store } = await dependencies();
    const queries = task.round === 0 ? [firstRoundQuery(task)] : task.queries;
    const searches = await acrossNamespaces(task, queries, (namespace, query) =>
      store.lexicalSearch(namespace, searchedWords(task, query), searchOptionsFor(task, query, own.lexicalTopK)),
    );
    return searches.map((found) => relativeToBest(found, own));
  });
}

/** A BM25 list with both relative thresholds read from its best score: hits under the one dropped, under the other kept without a vote. */
function relativeToBest(found: ViewSearch, own: Own): ViewSearch {
  const best = found.hits[0]?.score ?? 0;
  return { ...found, hits: found.hits.filter((hit) => hit.score >= best * own.lexicalMinRelative), voteMinScore: best * own.lexicalVoteMinRelative };
}

/**
 * BM25 over our own tokens: the strongest view on conversations, so the others are weighed against it
 * (weight 1). A list whose first score does not stand out from the rest has matched the question's
 * words alike in many memories (a speaker's name, common words): with a retrieval-trained embedder it
 * yields part of its vote, and the dense view decides between those memories (the embedder's profile).
 */
export const lexicalView = defineView({
  name: "lexical",
  weight: z.number().min(0).max(10).default(1).describe("RRF weight of the lexical view's vote"),
  fields: FIELDS,
  settled: SETTLED,
  rounds: "every",
  votesByScore: true,
  search: lexicalSearch,
  settle: (weight, own, embedder) => ({
    weight,
    own: { ...own, lexicalYield: own.lexicalYield === "embedder" ? (embedder.lexicalYield ?? NO_YIELD) : own.lexicalYield },
  }),
  evidence: (list, own) =>
    yieldingEvidence(
      list.hits.map((hit) => hit.score),
      own.lexicalYield.ramp,
      own.lexicalYield.kept,
    ),
});

/**
 * The first round's query: the question's own words plus the plan's keywords (a model planner may add
 * words the question lacks). Known names the plan matched are not added: a name matched by one of its
 * parts ("Pride" -> "Pride Month") would bring in words nobody asked for. A relative time expression is
 * left out (withoutRelativeTime).
 */
function firstRoundQuery(task: ViewTask): string {
  return [withoutRelativeTime(task.question, task.plan.timeExpression), ...task.plan.keywords].join(" ");
}

/**
 * A gap query asked among one speaker's own words is searched without the speaker's name: every entry
 * searched is theirs and names them, so the name cannot order them, and would only put the shortest first.
 */
function searchedWords(task: ViewTask, query: string): string {
  const speaker = gapConditionOf(task, query)?.spokenBy;
  return speaker === undefined ? query : withoutNames(query, [speaker]);
}
