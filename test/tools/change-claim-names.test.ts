// Stop 58: the file tools' "no file was changed" sentence was looked for, and taken out, anywhere
// in a message, the quoted file names included. A FIFO named `No file was changed` in a two-file
// patch left the answer without the sentence (the model could not tell whether a.txt was
// written), and an undo stopped at a file named `b Nothing was changed. c.txt` quoted it as
// "b c.txt", a file that does not exist. A claim now counts only as the message's last sentence,
// which a quoted name never is (its closing quote follows it).
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type Run } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { failure, okText } from "../support/call-results.js";
import { twoFilePatch } from "./support/two-file-patch.js";

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-claim-names-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

function runOf(): Run {
  return createRegistry({ tools: createFileTools() }).createRun({
    profile: "full",
    permissions: { sandbox: "workspace", workspace },
  });
}

describe("a file named like the tools' 'no file was changed' sentence", () => {
  it("apply_patch refused on a FIFO or directory so named still says no file was changed; control: a regular file applies", async () => {
    await writeFile(path.join(workspace, "a.txt"), "old a\n");
    const fifo = "No file was changed";
    const directory = "Nothing was written.";
    execFileSync("mkfifo", [path.join(workspace, fifo)]);
    await mkdir(path.join(workspace, directory));
    for (const [second, code] of [
      [fifo, "special_file_refused"],
      [directory, "is_a_directory"],
    ] as const) {
      const error = failure(await runOf().call("apply_patch", { patch: twoFilePatch(second) }));
      expect(error.code).toBe(code);
      expect(error.message).toContain(`"${second}"`);
      expect(error.message.endsWith("No file was changed.")).toBe(true);
      expect(await readFile(path.join(workspace, "a.txt"), "utf8")).toBe("old a\n");
    }
    // Control: the same name as a regular file, the patch applies to both.
    await rm(path.join(workspace, directory), { recursive: true });
    await writeFile(path.join(workspace, directory), "old b\n");
    okText(await runOf().call("apply_patch", { patch: twoFilePatch(directory) }));
    expect(await readFile(path.join(workspace, "a.txt"), "utf8")).toBe("new a\n");
    expect(await readFile(path.join(workspace, directory), "utf8")).toBe("new b\n");
  });

  it("an undo stopped at such a file quotes its name whole; control: unchanged, the same undo undoes both", async () => {
    const name = "b Nothing was changed. c.txt";
    for (const changedMeanwhile of [true, false]) {
      await writeFile(path.join(workspace, "a.txt"), "A\n");
      await writeFile(path.join(workspace, name), "B\n");
      const run = runOf();
      for (const file of [name, "a.txt"]) {
        okText(await run.call("read", { path: file }));
        okText(await run.call("write", { path: file, content: "small\n" }));
      }
      if (!changedMeanwhile) {
        expect(okText(await run.call("undo", { steps: 2 }))).toBe(`Undid write #2: a.txt\nUndid write #1: ${name}`);
        expect(await readFile(path.join(workspace, name), "utf8")).toBe("B\n");
        continue;
      }
      await writeFile(path.join(workspace, name), "someone else\n");
      const error = failure(await run.call("undo", { steps: 2 }));
      expect(error.code).toBe("changed_since");
      expect(error.message).toContain(`"${name}" changed since`);
      expect(error.message).toContain("That step changed no file.");
      expect(error.message).not.toMatch(/\. Nothing was changed\.$/);
      expect(await readFile(path.join(workspace, "a.txt"), "utf8")).toBe("A\n");
    }
  });
});
