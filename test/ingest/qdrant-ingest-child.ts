/**
 * One ingesting process of concurrent-origin-qdrant.test.ts: opens the Qdrant store at argv[2]
 * (collection argv[3]) and, for each round the parent sends over IPC, ingests its version (argv[4]) of
 * the shared source, then answers with when its ingest finished.
 */
import { z } from "zod";
import { ingestFile } from "../../src/ingest/ingest-file.js";
import { openQdrantStore } from "../../src/stores/qdrant.js";
import { testEmbedder } from "./helpers.js";
import { NAMESPACE, ORIGIN, versionText } from "./concurrent-origin-versions.js";

const [url = "", collection = "", name = ""] = process.argv.slice(2);
const RoundSchema = z.object({ round: z.number().int() });

const store = await openQdrantStore({ url, collection, embedding: testEmbedder.spec });
process.on("message", (message: unknown) => {
  const { round } = RoundSchema.parse(message);
  ingestFile({ text: versionText(name, round) }, { store, embedder: testEmbedder, namespace: NAMESPACE, origin: ORIGIN, format: "jsonl" })
    .then(() => process.send?.({ round, name, finishedAt: performance.timeOrigin + performance.now() }))
    .catch((error: unknown) => process.send?.({ round, name, error: String(error) }));
});
process.on("disconnect", () => process.exit(0));
process.send?.({ ready: true });
