/**
 * The error a transport raises when a server's message outgrows its limit, and the test for it.
 * Told by the whole message, never by words found in it: the SDK's other errors quote what the
 * server sent (a response to an id nobody asked, a progress notification for an unknown token),
 * so a server writing "exceeded maximum size" into one made the client reset a healthy
 * connection and answer the call in flight `mcp_output_too_large`.
 */
const OVERFLOW = /^(?:SSE stream disconnected: )?(?:Error: )?ReadBuffer exceeded maximum size of \d+ bytes$/;

/** The overflow error of a transport whose limit is `maxBytes` (the SDK's own wording). */
export function transportOverflowError(maxBytes: number): Error {
  return new Error(`ReadBuffer exceeded maximum size of ${maxBytes} bytes`);
}

/** True when `message` is an overflow error's, alone or as the SDK's SSE transport wraps it. */
export function isTransportOverflow(message: string | undefined): boolean {
  return message !== undefined && OVERFLOW.test(message);
}
