/**
 * The queries the Qdrant adapter is asked within one turn of the event loop, sent together as one
 * `/points/query/batch` request. A round's views search at once (the semantic view's query per
 * sub-query, the lexical view's, the symbolic view's first search), so a round's searches travel in
 * one round trip instead of one each. A query asked alone goes as a batch of one: there is one way
 * to query. Qdrant answers each search of a batch as it answers that query sent alone (the recorded
 * replay holds the stub to that), so batching changes no result.
 *
 * A failing request fails every query in it; each caller turns the failure into a StoreError of its
 * own operation.
 */
import type { Schemas } from "@qdrant/js-client-rest";
import type { QdrantScoredPoint } from "./qdrant-rest.js";

/**
 * Most searches in one request: a batch's answer is read whole, and a search that over-fetches for the
 * location check may ask for thousands of points, so a very wide turn is split rather than made one answer.
 */
export const MAX_SEARCHES_PER_BATCH = 32;

interface Waiting {
  search: Schemas["QueryRequest"];
  resolve: (points: QdrantScoredPoint[]) => void;
  reject: (error: unknown) => void;
}

export class QueryBatcher {
  private waiting: Waiting[] = [];

  constructor(private readonly sendBatch: (searches: Schemas["QueryRequest"][]) => Promise<QdrantScoredPoint[][]>) {}

  /** The points of one search, sent with every other search asked before the event loop's next turn. */
  query(search: Schemas["QueryRequest"]): Promise<QdrantScoredPoint[]> {
    return new Promise((resolve, reject) => {
      // setImmediate runs once the current turn's callbacks and their promise chains are done.
      if (this.waiting.length === 0) setImmediate(() => this.flush());
      this.waiting.push({ search, resolve, reject });
      if (this.waiting.length >= MAX_SEARCHES_PER_BATCH) this.flush();
    });
  }

  private flush(): void {
    const batch = this.waiting;
    if (batch.length === 0) return;
    this.waiting = [];
    this.sendBatch(batch.map((waiting) => waiting.search)).then(
      (answers) => batch.forEach((waiting, i) => waiting.resolve(answers[i] ?? [])),
      (error: unknown) => batch.forEach((waiting) => waiting.reject(error)),
    );
  }
}
