/**
 * Escape attempts through permission bits. The sandbox's user is the host user outside its user
 * namespace (root, when the host runs as root), so a file it makes in the workspace is owned by
 * that user on the host. With `chmod u+s` it would leave a set-user-id-root program in the
 * workspace for any local user (a CI job, a web server account, another container sharing the
 * volume) to become root with. The control: unsandboxed, the same commands do set the bits.
 */
import { statSync } from "node:fs";
import { chmod, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { createRegistry } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");

/** Files in `directory` (one level) with S_ISUID or S_ISGID set. */
async function setIdFiles(directory: string): Promise<string[]> {
  const names = await readdir(directory);
  return names.filter((name) => (statSync(path.join(directory, name)).mode & 0o6000) !== 0);
}

const ATTACKS = [
  "cp /usr/bin/id chmod-id && chmod 4755 chmod-id",
  "cp /usr/bin/id chmod-gid && chmod g+s chmod-gid",
  "install -m 4755 /usr/bin/id install-id",
  "python3 -c \"import os; os.close(os.open('open-id', os.O_CREAT | os.O_WRONLY, 0o4755))\"",
  "perl -e 'sysopen(F, \"sysopen-id\", 0101, 04755)'",
  "python3 -c \"import os; os.mknod('mknod-id', 0o104755)\"",
  "mkdir -m 2775 setgid-dir",
  "cp /usr/bin/id fchmod-id && python3 -c \"import os; fd = os.open('fchmod-id', os.O_RDONLY); os.fchmod(fd, 0o4755)\"",
].join("; ");

describe.skipIf(bubblewrap.missing)(bubblewrap.label("escape attempts: set-user-id programs on the host"), () => {
  let ground: Playground;
  beforeEach(async () => {
    ground = await playground();
  });
  afterEach(async () => ground.dispose());

  for (const scope of ["workspace", "local"] as const) {
    escapeAttempt("privileges", `make a set-user-id or set-group-id file in the workspace (${scope})`, async () => {
      const result = await sh(attackRun(ground.workspace, scope), `${ATTACKS}; ls -l`);
      expect(result.sandbox).toBe(`bubblewrap/${scope}`);
      expect(await setIdFiles(ground.workspace)).toEqual([]);
      // Ordinary modes still work.
      const ordinary = await sh(
        attackRun(ground.workspace, scope),
        "touch plain && chmod 755 plain && mkdir -m 1777 sticky && stat -c %a plain sticky",
      );
      expect(ordinary.stdout).toBe("755\n1777");
    });
  }

  it("positive control: unsandboxed, the same commands leave set-id files", async () => {
    const result = await sh(attackRun(ground.workspace, "unrestricted"), ATTACKS);
    expect(result.status).toBe("exit code 0");
    expect((await setIdFiles(ground.workspace)).length).toBeGreaterThanOrEqual(6);
  });
  escapeAttempt("privileges", "rewrite a set-user-id file of the workspace with write, edit and apply_patch", async () => {
    const run = createRegistry({ tools: createFileTools() }).createRun({
      profile: "full",
      permissions: { sandbox: "workspace", workspace: ground.workspace },
    });
    for (const [name, call] of [
      ["w", () => run.call("write", { path: "w", content: "#!/bin/sh\nid\n" })],
      ["e", () => run.call("edit", { path: "e", old_text: "old", new_text: "id" })],
      ["p", () => run.call("apply_patch", { patch: "*** Begin Patch\n*** Update File: p\n@@\n-old\n+id\n*** End Patch" })],
    ] as const) {
      const file = path.join(ground.workspace, name);
      await writeFile(file, "old\n");
      await chmod(file, 0o4755);
      // Control: the host did make it set-user-id.
      expect(statSync(file).mode & 0o7777).toBe(0o4755);
      expect((await call()).ok).toBe(true);
      // The content changed; the execute bits were kept, the set-user-id bit was not.
      expect(statSync(file).mode & 0o7777).toBe(0o755);
    }
  });
});
