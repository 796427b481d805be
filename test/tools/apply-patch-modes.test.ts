/**
 * apply_patch and git-format mode lines, side by side with `git apply` on the same patches. A
 * result must never claim a state the patch did not ask for: a symbolic link (`120000`), a
 * submodule (`160000`) or a binary patch is refused as a whole (`unsupported_patch`, nothing
 * written), and an executable bit asked for or taken away (`100755` / `100644`) is not applied but
 * named in the result (`mode not applied:`). The old code wrote a `new file mode 120000` patch as a
 * regular file holding the link's target, and dropped `new mode 100755` without a word.
 */
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, readlinkSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry } from "agent-tool-catalog";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFileTools } from "../../src/tools/index.js";
import { capability } from "../support/capabilities.js";

const git = capability("git");

let root: string;
/** Where apply_patch works. */
let workspace: string;
/** Where `git apply` works on the same files. */
let reference: string;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), "atc-patch-modes-"));
  workspace = path.join(root, "workspace");
  reference = path.join(root, "git");
  for (const directory of [workspace, reference]) {
    await mkdir(directory);
    await writeFile(path.join(directory, "a.txt"), "alpha\n");
  }
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const diff = (...lines: readonly string[]): string => `${lines.join("\n")}\n`;

/** apply_patch's answer: `ok` and the result text, or the error's code and message. */
async function applyPatch(patch: string): Promise<{ code: string; text: string }> {
  const run = createRegistry({ tools: createFileTools() }).createRun({
    profile: "full",
    permissions: { sandbox: "workspace", workspace },
  });
  const result = await run.call("apply_patch", { patch });
  return result.ok ? { code: "ok", text: String(result.output) } : { code: result.error.code, text: result.error.message };
}

/** `git apply` of the same patch in the reference directory (a fresh repository): true when it applied. */
function gitApply(patch: string): boolean {
  if (!existsSync(path.join(reference, ".git"))) execFileSync("git", ["init", "-q"], { cwd: reference });
  try {
    execFileSync("git", ["apply", "-"], { cwd: reference, input: patch, stdio: ["pipe", "ignore", "ignore"] });
    return true;
  } catch {
    return false;
  }
}

/** Every entry of the workspace with its kind and content (or link target), to show nothing changed. */
async function snapshot(): Promise<string[]> {
  const names = (await readdir(workspace)).sort();
  return Promise.all(
    names.map(async (name) => {
      const file = path.join(workspace, name);
      const stats = lstatSync(file);
      if (stats.isSymbolicLink()) return `${name} -> ${readlinkSync(file)}`;
      return `${name} ${(stats.mode & 0o777).toString(8)} ${JSON.stringify(await readFile(file, "utf8"))}`;
    }),
  );
}

const executable = async (file: string) => ((await stat(file)).mode & 0o111) !== 0;

/** A regular new file, first in a patch, so a refusal later in the same patch must undo it too. */
const plainAdd = diff(
  "diff --git a/plain.txt b/plain.txt",
  "new file mode 100644",
  "--- /dev/null",
  "+++ b/plain.txt",
  "@@ -0,0 +1 @@",
  "+plain",
);

const newLink = diff(
  "diff --git a/link b/link",
  "new file mode 120000",
  "--- /dev/null",
  "+++ b/link",
  "@@ -0,0 +1 @@",
  "+a.txt",
  "\\ No newline at end of file",
);

describe("apply_patch: git mode lines are applied as git does, or refused, or reported: never silently dropped", () => {
  it("refuses a new symbolic link (new file mode 120000) as a whole, naming why; git apply makes the link", async () => {
    const before = await snapshot();
    const result = await applyPatch(plainAdd + newLink);
    expect(result.code).toBe("unsupported_patch");
    expect(result.text).toMatch(/link is a symbolic link .*mode 120000.*cannot create, change or delete symbolic links/);
    // All or nothing: the regular file before the link section is not written either.
    expect(await snapshot()).toEqual(before);
    if (git.missing) return;
    expect(gitApply(plainAdd + newLink)).toBe(true);
    expect(readlinkSync(path.join(reference, "link"))).toBe("a.txt");
  });

  it("refuses a file turned into a link (old mode 100644, new mode 120000), as git apply does", async () => {
    const patch = diff(
      "diff --git a/a.txt b/a.txt",
      "old mode 100644",
      "new mode 120000",
      "--- a/a.txt",
      "+++ b/a.txt",
      "@@ -1 +1 @@",
      "-alpha",
      "+/etc/hostname",
      "\\ No newline at end of file",
    );
    const before = await snapshot();
    expect((await applyPatch(patch)).code).toBe("unsupported_patch");
    expect(await snapshot()).toEqual(before);
    if (git.missing) return;
    expect(gitApply(patch)).toBe(false);
  });

  it("refuses a change or deletion of an existing link (old mode / deleted file mode 120000); git apply makes them", async () => {
    await symlink("a.txt", path.join(workspace, "link"));
    await symlink("a.txt", path.join(reference, "link"));
    const retarget = diff(
      "diff --git a/link b/link",
      "--- a/link",
      "+++ b/link",
      "@@ -1 +1 @@",
      "-a.txt",
      "\\ No newline at end of file",
      "+b.txt",
      "\\ No newline at end of file",
    ).replace("--- a/link", "old mode 120000\nnew mode 120000\n--- a/link");
    const remove = diff(
      "diff --git a/link b/link",
      "deleted file mode 120000",
      "--- a/link",
      "+++ /dev/null",
      "@@ -1 +0,0 @@",
      "-a.txt",
      "\\ No newline at end of file",
    );
    const before = await snapshot();
    for (const patch of [retarget, remove]) {
      const result = await applyPatch(patch);
      expect(result.code).toBe("unsupported_patch");
      expect(result.text).toContain("symbolic link");
      expect(await snapshot()).toEqual(before);
    }
    if (git.missing) return;
    expect(gitApply(retarget)).toBe(true);
    expect(readlinkSync(path.join(reference, "link"))).toBe("b.txt");
    expect(gitApply(remove.replace("-a.txt", "-b.txt"))).toBe(true);
    expect(existsSync(path.join(reference, "link"))).toBe(false);
  });

  it("refuses a submodule (mode 160000) and binary patches, writing nothing", async () => {
    const submodule = diff(
      "diff --git a/sub b/sub",
      "new file mode 160000",
      "index 0000000..1234567",
      "--- /dev/null",
      "+++ b/sub",
      "@@ -0,0 +1 @@",
      "+Subproject commit 1234567890123456789012345678901234567890",
    );
    const binaryDiffer = diff(
      "diff --git a/bin b/bin",
      "new file mode 100644",
      "index 0000000..1234567",
      "Binary files /dev/null and b/bin differ",
    );
    const gitBinary = diff(
      "diff --git a/bin b/bin",
      "new file mode 100644",
      "index 0000000..1234567",
      "GIT binary patch",
      "literal 1",
      "IcmZPo000310RR91",
      "",
      "literal 0",
      "HcmV?d00001",
      "",
    );
    const before = await snapshot();
    for (const patch of [submodule, binaryDiffer, gitBinary]) {
      const result = await applyPatch(plainAdd + patch);
      expect(result.code, patch).toBe("unsupported_patch");
      expect(await snapshot()).toEqual(before);
    }
    expect((await applyPatch(plainAdd + submodule)).text).toContain("submodule");
  });

  it("reports the executable bit of a new file (new file mode 100755) as not applied; git apply sets it", async () => {
    const patch = diff(
      "diff --git a/run.sh b/run.sh",
      "new file mode 100755",
      "--- /dev/null",
      "+++ b/run.sh",
      "@@ -0,0 +1 @@",
      "+echo hi",
    );
    const result = await applyPatch(patch);
    expect(result.code).toBe("ok");
    expect(result.text).toContain("mode not applied: run.sh 100755 (not made executable");
    expect(await readFile(path.join(workspace, "run.sh"), "utf8")).toBe("echo hi\n");
    expect(await executable(path.join(workspace, "run.sh"))).toBe(false);
    if (git.missing) return;
    expect(gitApply(patch)).toBe(true);
    expect(await executable(path.join(reference, "run.sh"))).toBe(true);
  });

  it("reports a mode change alone (old mode 100644, new mode 100755) and one with hunks as not applied", async () => {
    const modeOnly = diff("diff --git a/a.txt b/a.txt", "old mode 100644", "new mode 100755");
    const result = await applyPatch(modeOnly);
    expect(result.code).toBe("ok");
    expect(result.text).toContain("The patch changes nothing");
    expect(result.text).toContain("mode not applied: a.txt 100755");
    expect(await executable(path.join(workspace, "a.txt"))).toBe(false);
    // Taken away, with a content change: the content is written, the bit stays, the result says so.
    await chmod(path.join(workspace, "a.txt"), 0o755);
    const clear = diff(
      "diff --git a/a.txt b/a.txt",
      "old mode 100755",
      "new mode 100644",
      "--- a/a.txt",
      "+++ b/a.txt",
      "@@ -1 +1 @@",
      "-alpha",
      "+beta",
    );
    const cleared = await applyPatch(clear);
    expect(cleared.code).toBe("ok");
    expect(cleared.text).toMatch(/^M a\.txt \(\+1 -1\)$/m);
    expect(cleared.text).toContain("mode not applied: a.txt 100644 (executable bit not cleared");
    expect(await readFile(path.join(workspace, "a.txt"), "utf8")).toBe("beta\n");
    expect(await executable(path.join(workspace, "a.txt"))).toBe(true);
    if (git.missing) return;
    expect(gitApply(modeOnly)).toBe(true);
    expect(await executable(path.join(reference, "a.txt"))).toBe(true);
  });

  it("control: a regular new file (new file mode 100644) and a plain diff apply as git applies them, with no mode line", async () => {
    const result = await applyPatch(plainAdd);
    expect(result.code).toBe("ok");
    expect(result.text).not.toContain("mode not applied");
    expect(await readFile(path.join(workspace, "plain.txt"), "utf8")).toBe("plain\n");
    const same = diff(
      "diff --git a/a.txt b/a.txt",
      "old mode 100755",
      "new mode 100755",
      "--- a/a.txt",
      "+++ b/a.txt",
      "@@ -1 +1 @@",
      "-alpha",
      "+gamma",
    );
    await chmod(path.join(workspace, "a.txt"), 0o755);
    const kept = await applyPatch(same);
    expect(kept.code).toBe("ok");
    expect(kept.text).not.toContain("mode not applied");
    expect(await executable(path.join(workspace, "a.txt"))).toBe(true);
    if (git.missing) return;
    expect(gitApply(plainAdd)).toBe(true);
    expect(await readFile(path.join(reference, "plain.txt"), "utf8")).toBe("plain\n");
  });
});
