import { Document } from "@langchain/core/documents";
import { BaseRetriever, type BaseRetrieverInput } from "@langchain/core/retrievers";
import type { CallbackManagerForRetrieverRun } from "@langchain/core/callbacks/manager";
import type { RetrievalConfigInput } from "../graph/configuration.js";
import type { RetrievalGraph } from "../graph/graph.js";
import { retrieve } from "../library/retrieve.js";
import type { Provenance } from "../domain/hits.js";

export interface RecallGraphRetrieverInput extends BaseRetrieverInput {
  graph: RetrievalGraph;
  /** Whose memories this retriever reads; fixed at construction so a query can never choose another. */
  namespace: string | string[];
  /** Retrieval configuration for every query (top-k, presets...). */
  configurable?: RetrievalConfigInput;
  /** Reference time for relative expressions; default the clock at each query, or `asOf` when that is set. */
  now?: () => Date;
  /** Answer as things stood at this time (see RetrieveRequest's `asOf`); default the present. */
  asOf?: Date | string;
}

/** recallgraph as a LangChain retriever: each result becomes a Document with its metadata and provenance. */
export class RecallGraphRetriever extends BaseRetriever {
  static override lc_name(): string {
    return "RecallGraphRetriever";
  }

  lc_namespace = ["recallgraph", "retrievers"];

  private readonly graph: RetrievalGraph;
  private readonly namespace: string | string[];
  private readonly configurable: RetrievalConfigInput;
  private readonly now: (() => Date) | undefined;
  private readonly asOf: Date | string | undefined;

  constructor(fields: RecallGraphRetrieverInput) {
    super(fields);
    this.graph = fields.graph;
    this.namespace = fields.namespace;
    this.configurable = fields.configurable ?? {};
    this.now = fields.now;
    this.asOf = fields.asOf;
  }

  /** The request's times: asOf when set (then also the reference time, unless a clock was given), else the clock. */
  private times(): { now?: Date; asOf?: Date | string } {
    const asOf = this.asOf !== undefined ? { asOf: this.asOf } : {};
    if (this.now) return { ...asOf, now: this.now() };
    return this.asOf !== undefined ? asOf : { now: new Date() };
  }

  override async _getRelevantDocuments(query: string, runManager?: CallbackManagerForRetrieverRun): Promise<Document[]> {
    const output = await retrieve(
      this.graph,
      { question: query, namespace: this.namespace, ...this.times() },
      { configurable: this.configurable, callbacks: runManager?.getChild("recallgraph") },
    );
    return output.results.map(
      (result) =>
        new Document({
          pageContent: result.text,
          id: result.id,
          metadata: {
            id: result.id,
            namespace: result.namespace,
            timestamp: result.timestamp,
            persons: result.persons,
            speaker: result.speaker,
            entities: result.entities,
            location: result.location,
            source: result.source,
            score: result.score,
            views: result.provenance.views,
            // How the memory stands: superseded or replacing others, out of its validity, in conflict.
            ...historyOf(result.provenance),
          },
        }),
    );
  }
}

const HISTORY_FIELDS = ["history", "supersededBy", "supersedes", "supersessionReason", "conflictsWith"] as const;

/** The provenance fields that say how a memory stands in time, those that are set. */
function historyOf(provenance: Provenance): Partial<Pick<Provenance, (typeof HISTORY_FIELDS)[number]>> {
  return Object.fromEntries(HISTORY_FIELDS.filter((field) => provenance[field] !== undefined).map((field) => [field, provenance[field]]));
}

