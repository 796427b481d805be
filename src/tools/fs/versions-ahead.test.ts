import { describe, expect, it } from "vitest";
import { versionOf } from "./commit-file-changes.js";
import { VersionsAhead } from "./versions-ahead.js";

describe("VersionsAhead", () => {
  it("answers versionOf's token for contents hashed ahead, not started, and a delete", async () => {
    const contents = Array.from({ length: 200 }, (_, index) => Buffer.alloc(64 * 1024, index));
    const other = Buffer.from("not started\n");
    const ahead = new VersionsAhead();
    await ahead.start([...contents, undefined, contents[0]]);
    for (const content of contents) expect(ahead.of(content)).toBe(versionOf(content));
    expect(ahead.of(other)).toBe(versionOf(other));
    expect(ahead.of(undefined)).toBe(versionOf(undefined));
  });

  it("yields to the event loop between slices", async () => {
    // 200 x 256 KiB: many slices of hashing.
    const contents = Array.from({ length: 200 }, (_, index) => Buffer.alloc(256 * 1024, index));
    const ahead = new VersionsAhead();
    let done = false;
    const hashing = ahead.start(contents).then(() => {
      done = true;
    });
    let timerRanBeforeDone: boolean | undefined;
    setTimeout(() => {
      timerRanBeforeDone = !done;
    }, 0);
    await hashing;
    expect(timerRanBeforeDone).toBe(true);
  });

  it("stops when asked; what is left is hashed when asked, with the same tokens", async () => {
    const contents = Array.from({ length: 50 }, (_, index) => Buffer.alloc(64 * 1024, index));
    const ahead = new VersionsAhead();
    const hashing = ahead.start(contents);
    ahead.stop();
    await hashing;
    for (const content of contents) expect(ahead.of(content)).toBe(versionOf(content));
  });
});
