/**
 * SpecCheckingQdrantStub in a process of its own, for `bench:speed -- --store qdrant` without
 * QDRANT_URL: prints its URL on the first line of stdout and serves until it is killed.
 */
import { SpecCheckingQdrantStub } from "../test/stores/qdrant-stub.js";

const stub = await SpecCheckingQdrantStub.start();
// The stub records every request for the tests' assertions; a benchmark's would only fill memory.
setInterval(() => stub.clearRequests(), 1_000).unref();
process.on("SIGTERM", () => {
  if (stub.violations.length) process.stderr.write(`Qdrant stub: ${stub.violations.length} spec violations, first: ${stub.violations[0]}\n`);
  void stub.close().then(() => process.exit(0));
});
process.stdout.write(`${stub.url}\n`);
