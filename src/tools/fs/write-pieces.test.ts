import { closeSync, openSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PiecedBytes } from "./patch/pieced-bytes.js";
import { writeContent, writeContentSync } from "./write-pieces.js";

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(path.join(tmpdir(), "atc-write-pieces-"));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

/** 3,000 pieces (more than one `writev` takes: IOV_MAX is 1,024) of 1 to 40 bytes, and their join. */
function manyPieces(): { content: PiecedBytes; whole: Buffer } {
  const pieces = Array.from({ length: 3000 }, (_, index) => Buffer.from(`${index}:${"x".repeat(index % 37)}\n`));
  return { content: new PiecedBytes(pieces), whole: Buffer.concat(pieces) };
}

describe("writeContent / writeContentSync: a new content written whole from its pieces", () => {
  for (const [name, write] of [
    ["synchronous", async (fd: number, content: PiecedBytes | Buffer | string) => writeContentSync(fd, content)],
    ["through the thread pool", writeContent],
  ] as const) {
    it(`${name}: pieces past one writev's limit, bytes, and text each land whole and in order`, async () => {
      const { content, whole } = manyPieces();
      for (const [file, given, expected] of [
        ["pieces", content, whole],
        ["bytes", whole, whole],
        ["text", "é\r\nline\n", Buffer.from("é\r\nline\n")],
        ["nothing", new PiecedBytes([]), Buffer.alloc(0)],
      ] as const) {
        const at = path.join(directory, `${name}-${file}`);
        const fd = openSync(at, "w");
        try {
          await write(fd, given);
        } finally {
          closeSync(fd);
        }
        expect(readFileSync(at).equals(expected)).toBe(true);
      }
    });
  }
});
