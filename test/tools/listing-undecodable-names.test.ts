/**
 * A file whose name is not valid UTF-8 was listed by `ls` and `glob` as its U+FFFD twin: a name
 * that is another file (one truly named with U+FFFD) or none, so the model read, edited or deleted
 * the twin believing it was the listed file. Now such an entry is listed as a note, marked not
 * reachable by name, and a directory so named is not entered (its path would open the twin).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type Run } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-undecodable-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const bytePath = (...parts: Buffer[]) => Buffer.concat([Buffer.from(`${workspace}/`), ...parts]);

function runIn(sandbox: "workspace" | "unrestricted"): Run {
  return createRegistry({ tools: createFileTools() }).createRun({ profile: "full", permissions: { sandbox, workspace } });
}

const outputOf = (result: { ok: boolean; output?: unknown }) => (result.ok ? String(result.output) : "");

describe("names that are not valid UTF-8 in listings", () => {
  for (const sandbox of ["workspace", "unrestricted"] as const) {
    it(`ls and glob mark them unreachable, never list them as their U+FFFD twin (${sandbox}); the twin itself is listed and read`, async () => {
      // "a\xff" (bytes) beside "a\ufffd" (a real file of that name), and a directory "d\xfe".
      writeFileSync(bytePath(Buffer.from([0x61, 0xff])), "bytes\n");
      writeFileSync(path.join(workspace, "a\uFFFD"), "twin\n");
      mkdirSync(bytePath(Buffer.from([0x64, 0xfe])));
      writeFileSync(bytePath(Buffer.from([0x64, 0xfe]), Buffer.from("/inside.txt")), "inside\n");
      const run = runIn(sandbox);

      const ls = outputOf(await run.call("ls", { path: ".", depth: 2 }));
      const lsLines = ls.split("\n");
      // The twin once, by its name; the byte-named file and directory as notes.
      expect(lsLines.filter((line) => line.startsWith("a\uFFFD"))).toHaveLength(1);
      expect(lsLines).toContain(
        '[not reachable by name: "a\uFFFD" (its name is not valid UTF-8; U+FFFD stands for the bytes, so that name is another file or none; rename it outside the file tools to use it)]',
      );
      expect(
        lsLines.some(
          (line) => line.startsWith('[not reachable by name: "d\uFFFD/"') && line.includes("its entries are missing here"),
        ),
      ).toBe(true);
      expect(ls).not.toContain("inside.txt");

      const glob = outputOf(await run.call("glob", { pattern: "*" }));
      const globLines = glob.split("\n");
      expect(globLines.filter((line) => line === "a\uFFFD")).toHaveLength(1);
      expect(globLines.some((line) => line.startsWith('[not reachable by name: "a\uFFFD"'))).toBe(true);
      expect(globLines.some((line) => line.startsWith('[not reachable by name: "d\uFFFD/"'))).toBe(true);
      // A pattern the byte-named file does not match leaves it out.
      expect(outputOf(await run.call("glob", { pattern: "*.txt" }))).not.toContain("a\uFFFD");

      // The positive control: the name listed is the twin's, and reads the twin.
      expect(outputOf(await run.call("read", { path: "a\uFFFD" }))).toContain("twin");
    });
  }
});
