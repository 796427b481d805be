import { gitScanTiming } from "../../src/tools/sandbox/git-protection.js";

/**
 * Shortens the git scan's racy margin (2.5 s by default) to 200 ms, where this machine's file
 * times are fine-grained, and waits past it: from then on the scan and the after-command walk
 * reuse listings of unchanged directories, the path the cache tests exercise. Returns what puts
 * the margin back as it was (call it in afterAll).
 */
export async function shortRacyMargin(): Promise<() => void> {
  const previous = gitScanTiming.racyMarginNs;
  gitScanTiming.racyMarginNs = 200_000_000n;
  await new Promise((resolve) => setTimeout(resolve, 300));
  return () => {
    gitScanTiming.racyMarginNs = previous;
  };
}
