/**
 * Polls `check` every 10 ms until it returns true; fails after `timeoutMs` (bounded, never hangs).
 * What it waits for is an eventual state (a server has seen a notification, a process is gone), not
 * a time bound under test: the 15 s default is a ceiling. 5 s was too short under 2 CPU hogs at
 * load 15-20, where an HTTP server took over 5 s to see notifications/cancelled.
 */
export async function waitFor(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
