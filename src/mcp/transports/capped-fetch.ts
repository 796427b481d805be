import { transportOverflowError } from "./transport-overflow.js";

/** The message size limit of the HTTP transports, as the stdio transport's (10 MiB). */
export const MAX_HTTP_MESSAGE_BYTES = 10 * 1024 * 1024;

/**
 * A `fetch` whose response bodies are bounded like the stdio transport's messages: a JSON body
 * over `maxBytes` in all, or an event stream whose current event (the bytes since the last blank
 * line) grows over `maxBytes`, errors the body with the same "exceeded maximum size" message, and
 * the download stops. The SDK's event-stream parser buffers an event until it ends, so a server
 * sending one endless event grew the host's memory by tens of MB a second until the timeout.
 */
export function cappedFetch(maxBytes: number, base: typeof fetch = globalThis.fetch): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    if (response.body === null) return response;
    const eventStream = (response.headers.get("content-type") ?? "").includes("text/event-stream");
    let pending = 0;
    let tail = Buffer.alloc(0);
    const bounded = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (eventStream) {
          // An event ends at a blank line: "\n\n" or "\n\r\n", possibly split across chunks.
          const view = Buffer.concat([tail, Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)]);
          const end = Math.max(view.lastIndexOf("\n\n"), view.lastIndexOf("\n\r\n"));
          pending = end === -1 ? pending + chunk.byteLength : view.length - end - 2;
          tail = view.subarray(Math.max(0, view.length - 2));
        } else pending += chunk.byteLength;
        if (pending > maxBytes) {
          controller.error(transportOverflowError(maxBytes));
          return;
        }
        controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(bounded), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
