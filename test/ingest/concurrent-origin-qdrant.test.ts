/**
 * Two processes ingest two versions of one source into one Qdrant collection at once, round after
 * round (as two machines sharing a server would): the origin's lease is held on the server, so one
 * ingest runs after the other and the version that finished last is what stays, whole, never a mix
 * and never less. The server is SpecCheckingQdrantStub on 127.0.0.1, which both children reach over
 * HTTP; it applies a conditional upsert as Qdrant documents it (see its header), it is not Qdrant.
 */
import assert from "node:assert/strict";
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import { z } from "zod";
import { openQdrantStore, type QdrantMemoryStore } from "../../src/stores/qdrant.js";
import { QDRANT_SPEC_PATH, qdrantSpecAvailable } from "../stores/qdrant-spec.js";
import { SpecCheckingQdrantStub } from "../stores/qdrant-stub.js";
import { LINES, NAMESPACE, lineText, versionIds } from "./concurrent-origin-versions.js";
import { testEmbedder } from "./helpers.js";

const SKIP = qdrantSpecAvailable() ? false : `Qdrant OpenAPI spec not found at ${QDRANT_SPEC_PATH}: skipped`;
const CHILD = fileURLToPath(new URL("./qdrant-ingest-child.ts", import.meta.url));
const ROUNDS = 12;
const COLLECTION = "rg_concurrent_origin";

const ReplySchema = z.union([
  z.object({ ready: z.literal(true) }),
  z.object({ round: z.number(), name: z.string(), finishedAt: z.number() }),
  z.object({ round: z.number(), name: z.string(), error: z.string() }),
]);
type Reply = z.infer<typeof ReplySchema>;

/** A child process ingesting version `name`; `next()` resolves with its next message. */
function startChild(url: string, name: string): { child: ChildProcess; next: () => Promise<Reply> } {
  const child = fork(CHILD, [url, COLLECTION, name], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  const queue: Reply[] = [];
  const waiting: Array<(reply: Reply) => void> = [];
  child.on("message", (message: unknown) => {
    const reply = ReplySchema.parse(message);
    const resolve = waiting.shift();
    if (resolve) resolve(reply);
    else queue.push(reply);
  });
  const next = () => new Promise<Reply>((resolve) => {
    const queued = queue.shift();
    if (queued) resolve(queued);
    else waiting.push(resolve);
  });
  return { child, next };
}

function finishedAt(reply: Reply): number {
  if ("error" in reply) assert.fail(`ingest of version ${reply.name} failed: ${reply.error}`);
  if (!("finishedAt" in reply)) assert.fail("child answered out of turn");
  return reply.finishedAt;
}

describe("two processes ingesting one origin into one Qdrant collection", { skip: SKIP }, () => {
  let stub: SpecCheckingQdrantStub;
  let reader: QdrantMemoryStore;
  const children: Array<ReturnType<typeof startChild>> = [];

  before(async () => {
    stub = await SpecCheckingQdrantStub.start();
    reader = await openQdrantStore({ url: stub.url, collection: COLLECTION, embedding: testEmbedder.spec });
    children.push(startChild(stub.url, "a"), startChild(stub.url, "b"));
    for (const { next } of children) assert.deepEqual(await next(), { ready: true });
  });
  after(async () => {
    for (const { child } of children) child.disconnect();
    await stub?.close();
  });

  it(`keeps exactly the version that finished last, whole, in each of ${ROUNDS} rounds`, async () => {
    for (let round = 1; round <= ROUNDS; round++) {
      for (const { child } of children) child.send({ round });
      const [a, b] = await Promise.all(children.map(({ next }) => next()));
      const last = finishedAt(a ?? assert.fail("no reply")) > finishedAt(b ?? assert.fail("no reply")) ? "a" : "b";
      const page = await reader.list(NAMESPACE, { limit: 1000 });
      const ids = page.entries.map((entry) => entry.id).sort();
      assert.deepEqual(ids, versionIds(last, round), `round ${round}: ${ids.length} of ${LINES} lines, version ${last} finished last`);
      const texts = new Map(page.entries.map((entry) => [entry.id, entry.text]));
      assert.equal(texts.get("shared-0"), lineText(last, round, 0), `round ${round}: a shared line holds the last version's text`);
    }
    assert.deepEqual(stub.violations, []);
  });
});
