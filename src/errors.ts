/** `recallgraph/errors`: every error recallgraph throws to a caller, its codes, and the guard that knows them across copies of the package. */
export {
  AbortedError,
  AccessDeniedError,
  EmbedderMismatchError,
  ERROR_CODES,
  isRecallGraphError,
  ReadOnlyStoreError,
  RecallGraphError,
  RequestTimeoutError,
  ResponseTooLargeError,
  StoreError,
  ValidationError,
  type ErrorCode,
} from "./core/errors.js";
export { DeadlineError } from "./runtime/deadline.js";
export { EmbeddingOutputError } from "./text/embedders/checked.js";
export { OnnxModelError, type OnnxModelFailure } from "./text/embedders/onnx-folder.js";
export { EmbeddingWorkerError, type EmbeddingWorkerFailure } from "./text/embedders/worker-pool.js";
