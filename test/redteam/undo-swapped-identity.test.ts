/**
 * Red team round 9: undo after an outside process swapped the file for a symbolic link. Undo
 * compared only content versions, so a link to another file holding the same bytes passed the
 * check and undo acted through the link: undoing a `write` that created `f.txt` deleted the
 * link's target (a file the tools never made), and undoing a modification wrote the old text
 * into it, inside the workspace or, under `unrestricted` / `local`, anywhere. "Undo never
 * overwrites a change made outside the tools": replacing the file by a link is such a change.
 */
import { spawnSync } from "node:child_process";
import { lstat, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type SandboxScope } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

let base: string;
let workspace: string;
beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), "atc-undo-identity-"));
  workspace = path.join(base, "ws");
  await mkdir(path.join(workspace, "sub"), { recursive: true });
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

/** An outside process (not these tools) replaces `file` with a symbolic link to `target`. */
function swapForLink(file: string, target: string): void {
  const swapped = spawnSync("sh", ["-c", 'rm -f "$1" && ln -s "$2" "$1"', "sh", file, target]);
  expect(swapped.status).toBe(0);
}

/** An outside process replaces directory `directory` with a symbolic link to `target`. */
function swapDirectoryForLink(directory: string, target: string): void {
  const swapped = spawnSync("sh", ["-c", 'mv "$1" "$1.moved" && ln -s "$2" "$1"', "sh", directory, target]);
  expect(swapped.status).toBe(0);
}

const SCOPES: SandboxScope[] = ["unrestricted", "local", "workspace"];

describe("undo refuses a file whose path now leads elsewhere", () => {
  for (const scope of SCOPES) {
    for (const kind of ["created", "modified"] as const) {
      it(`${scope}: the ${kind} file replaced by a link to a file with the same bytes is changed_since, and the link's target is untouched`, async () => {
        const file = path.join(workspace, "f.txt");
        const victim = path.join(workspace, "victim.txt");
        if (kind === "modified") await writeFile(file, "original\n");
        const registry = createRegistry({ tools: createFileTools() });
        const run = registry.createRun({ profile: "full", permissions: { sandbox: scope, workspace } });
        expect(await run.call("write", { path: "f.txt", content: "by the tool\n" })).toMatchObject({ ok: true });
        await writeFile(victim, "by the tool\n");
        swapForLink(file, victim);
        expect(await run.call("undo", {})).toMatchObject({ ok: false, error: { code: "changed_since" } });
        expect(await readFile(victim, "utf8")).toBe("by the tool\n");
        expect((await lstat(file)).isSymbolicLink()).toBe(true);
        await registry.close();
      });
    }

    it(`${scope}: a directory of the file replaced by a link to a copy is changed_since, and the copy is untouched`, async () => {
      const copy = path.join(workspace, "copy");
      await mkdir(copy);
      const registry = createRegistry({ tools: createFileTools() });
      const run = registry.createRun({ profile: "full", permissions: { sandbox: scope, workspace } });
      expect(await run.call("write", { path: "sub/f.txt", content: "by the tool\n" })).toMatchObject({ ok: true });
      await writeFile(path.join(copy, "f.txt"), "by the tool\n");
      swapDirectoryForLink(path.join(workspace, "sub"), copy);
      expect(await run.call("undo", {})).toMatchObject({ ok: false, error: { code: "changed_since" } });
      expect(await readFile(path.join(copy, "f.txt"), "utf8")).toBe("by the tool\n");
      await registry.close();
    });

    it(`${scope}: the check survives a saved and resumed run`, async () => {
      const file = path.join(workspace, "f.txt");
      const victim = path.join(workspace, "victim.txt");
      const registry = createRegistry({ tools: createFileTools() });
      const run = registry.createRun({ profile: "full", permissions: { sandbox: scope, workspace } });
      expect(await run.call("write", { path: "f.txt", content: "by the tool\n" })).toMatchObject({ ok: true });
      const resumed = registry.createRun({
        state: JSON.parse(JSON.stringify(run.toJSON())),
        profile: "full",
        permissions: { sandbox: scope, workspace },
      });
      await writeFile(victim, "by the tool\n");
      swapForLink(file, victim);
      expect(await resumed.call("undo", {})).toMatchObject({ ok: false, error: { code: "changed_since" } });
      expect(await readFile(victim, "utf8")).toBe("by the tool\n");
      await registry.close();
    });

    it(`${scope} control: a file written through a link is undone through it, and an untouched file is undone`, async () => {
      await writeFile(path.join(workspace, "real.txt"), "real before\n");
      swapForLink(path.join(workspace, "link.txt"), path.join(workspace, "real.txt"));
      const registry = createRegistry({ tools: createFileTools() });
      const run = registry.createRun({ profile: "full", permissions: { sandbox: scope, workspace } });
      expect(await run.call("write", { path: "link.txt", content: "through the link\n" })).toMatchObject({ ok: true });
      expect(await run.call("write", { path: "plain.txt", content: "made\n" })).toMatchObject({ ok: true });
      expect(await run.call("undo", { steps: 2 })).toMatchObject({ ok: true });
      expect(await readFile(path.join(workspace, "real.txt"), "utf8")).toBe("real before\n");
      expect((await lstat(path.join(workspace, "link.txt"))).isSymbolicLink()).toBe(true);
      await expect(lstat(path.join(workspace, "plain.txt"))).rejects.toMatchObject({ code: "ENOENT" });
      await registry.close();
    });
  }
});
