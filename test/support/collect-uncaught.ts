/**
 * Runs `body` with this process's uncaught-exception listeners (vitest's among them) swapped for
 * one that collects, then waits a little so errors rethrown on a later tick are seen: a test of
 * code that deliberately rethrows a host hook's error asynchronously checks it here instead of
 * failing the run as an unhandled error.
 */
export async function collectUncaught(body: () => Promise<void>, settleMs = 20): Promise<unknown[]> {
  const saved = process.listeners("uncaughtException");
  const caught: unknown[] = [];
  const collect = (error: unknown) => caught.push(error);
  process.removeAllListeners("uncaughtException");
  process.on("uncaughtException", collect);
  try {
    await body();
    await new Promise((resolve) => setTimeout(resolve, settleMs));
  } finally {
    process.off("uncaughtException", collect);
    for (const listener of saved) process.on("uncaughtException", listener);
  }
  return caught;
}
