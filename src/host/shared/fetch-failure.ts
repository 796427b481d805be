/**
 * Why a `fetch` call failed, for the host tools that reach a server (web_fetch, sourcegraph).
 * undici's `fetch` rejects with a bare "fetch failed" and keeps the reason in `cause`: a refused
 * connection (nothing listens; retrying the same address will not help), a reset (the server or a
 * proxy closed the connection; retrying may), a name that does not resolve, a bad certificate.
 * The model can only choose well between trying again and giving up if the message says which.
 */

/** Error codes of a connection reset or closed by the other side before an answer. */
const RESET_CODES = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET"]);

/**
 * Whether `error` (a rejected `fetch`, or its cause) is a connection reset or closed by the other
 * side before any answer: the case where sending a safe request again on a new connection helps.
 */
export function isConnectionReset(error: unknown): boolean {
  const cause = error instanceof Error ? error.cause : undefined;
  const code = (cause as NodeJS.ErrnoException | undefined)?.code ?? (error as NodeJS.ErrnoException | undefined)?.code;
  return code !== undefined && RESET_CODES.has(code);
}

/**
 * A failed request's message with its cause, e.g. `fetch failed (connect ECONNREFUSED
 * 127.0.0.1:9)` or `fetch failed (UND_ERR_SOCKET: other side closed)` rather than `fetch failed`.
 * The code is added only when the cause's message does not already name it.
 */
export function describeFetchFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause;
  if (!(cause instanceof Error)) return error.message;
  const code = (cause as NodeJS.ErrnoException).code;
  return `${error.message} (${code !== undefined && !cause.message.includes(code) ? `${code}: ` : ""}${cause.message})`;
}
