/**
 * `fetch` for model and embedder endpoints, reading at most a fixed number of bytes of a response.
 * The clients buffer a whole response before parsing it; a server that sends without end (broken, or
 * hostile) would otherwise fill memory until the process dies, whatever the call's time limit. Past
 * the limit the body is cut off and the read fails with ResponseTooLargeError.
 */
import { ResponseTooLargeError } from "./errors.js";

/** The most one response may carry: far above any chat answer or embedding batch recallgraph asks for. */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

export function boundedFetch(limitBytes = MAX_RESPONSE_BYTES): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const url = response.url || String(input instanceof Request ? input.url : input);
    if (Number(response.headers.get("content-length") ?? 0) > limitBytes) {
      await response.body?.cancel();
      throw new ResponseTooLargeError(url, limitBytes);
    }
    if (!response.body) return response;
    let received = 0;
    const limited = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          received += chunk.byteLength;
          if (received > limitBytes) controller.error(new ResponseTooLargeError(url, limitBytes));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(limited, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
