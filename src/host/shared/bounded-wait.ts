/**
 * How long past its own limit a host's wait has to answer before the tool stops waiting: an
 * honest service answers at its limit, with the state it has then.
 */
const GRACE_MS = 1000;

/**
 * `waiting` (a host service's `wait(id, { timeoutMs })`), or `undefined` once `timeoutMs` and a
 * second's grace have passed without it settling; the caller then answers with the last state it
 * knows, as a wait that timed out does. A tool that tells the model it waits "at most
 * timeout_seconds" keeps that itself: a host's `SubagentManager` or `WorkflowService` that ignores
 * `timeoutMs` (and its signal) held the call, and the model's whole step, for ever.
 */
export function boundedWait<T>(waiting: Promise<T>, timeoutMs: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const giveUp = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), timeoutMs + GRACE_MS);
  });
  return Promise.race([waiting, giveUp]).finally(() => clearTimeout(timer));
}
