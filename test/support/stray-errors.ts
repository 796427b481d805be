import { afterAll, afterEach, beforeAll, expect } from "vitest";

/**
 * Fails each test of the file after which an unhandled rejection or uncaught exception surfaced
 * (a hostile value or a late answer must never leave one behind). Late rejections surface on a
 * later turn, so each check waits 20 ms first. Call at the top level of a test file.
 */
export function failOnStrayErrors(): void {
  const stray: unknown[] = [];
  const onStray = (reason: unknown) => stray.push(reason);
  beforeAll(() => {
    process.on("unhandledRejection", onStray);
    process.on("uncaughtException", onStray);
  });
  afterAll(() => {
    process.off("unhandledRejection", onStray);
    process.off("uncaughtException", onStray);
  });
  afterEach(async () => {
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stray).toEqual([]);
    stray.length = 0;
  });
}
