/**
 * Escape attempts through names that are not valid UTF-8: Node decodes such a directory name
 * with U+FFFD, a path that names nothing, so the git-state scan before each command neither
 * looked inside nor could give bwrap the path (process arguments are strings). A repository the
 * user keeps under such a directory (an archive unpacked with Latin-1 names) had a writable
 * `config`, which host git in it then follows (`core.fsmonitor` runs a command). Controls: the
 * same repository under a UTF-8 name is read-only, a directory of such a name without git state
 * does not stop commands, and under scope `local` the write goes through.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const git = capability("git");

/** `v` then byte 0xFF: not valid UTF-8. */
const UNDECODABLE = Buffer.from([0x76, 0xff]);
const PLANT = `printf '[core]\\n\\tfsmonitor = "touch fired; echo"\\n' >> "$(printf 'v\\377')/.git/config" && echo planted`;

describe.skipIf(bubblewrap.missing || git.missing)(
  bubblewrap.label("escape attempts: git state under names that are not UTF-8"),
  () => {
    const grounds: Playground[] = [];
    afterEach(async () => {
      for (const ground of grounds.splice(0)) await ground.dispose();
    });

    async function workspaceWithRepository(): Promise<string> {
      const ground = await playground();
      grounds.push(ground);
      execFileSync("bash", ["-c", `mkdir "$(printf 'v\\377')" utf && git init -q "$(printf 'v\\377')" && git init -q utf`], {
        cwd: ground.workspace,
      });
      return ground.workspace;
    }

    const config = (workspace: string) =>
      readFileSync(Buffer.concat([Buffer.from(`${workspace}/`), UNDECODABLE, Buffer.from("/.git/config")]), "utf8");

    escapeAttempt("git-metadata", "a repository under a directory whose name is not UTF-8: its config is writable", async () => {
      const workspace = await workspaceWithRepository();
      const result = await sh(attackRun(workspace, "workspace"), PLANT);
      expect(result.stdout).not.toContain("planted");
      expect(config(workspace)).not.toContain("fsmonitor");
      // Refused before it runs, saying what to rename.
      expect(result.status).toBe("error:sandbox_unavailable");
      expect(result.text).toContain("not valid UTF-8");
    });

    escapeAttempt(
      "git-metadata",
      "a submodule git directory whose name is not UTF-8 (.git/modules/<name>): its config is writable",
      async () => {
        const ground = await playground();
        grounds.push(ground);
        const workspace = ground.workspace;
        execFileSync("bash", ["-c", `git init -q . && git init -q --bare ".git/modules/$(printf 'v\\377')"`], { cwd: workspace });
        const result = await sh(
          attackRun(workspace, "workspace"),
          `printf '[core]\\n\\tfsmonitor = "touch fired; echo"\\n' >> ".git/modules/$(printf 'v\\377')/config" && echo planted`,
        );
        expect(result.stdout).not.toContain("planted");
        expect(result.status).toBe("error:sandbox_unavailable");
        // Control: a submodule git directory of a UTF-8 name is read-only, and the command runs.
        execFileSync("bash", ["-c", `mv ".git/modules/$(printf 'v\\377')" .git/modules/utf`], { cwd: workspace });
        const utf = await sh(attackRun(workspace, "workspace"), "echo ran; printf x >> .git/modules/utf/config && echo planted");
        expect(utf.stdout).toBe("ran");
        expect(utf.stderr).toContain("Read-only file system");
      },
    );

    it("controls: under local the plant works; a UTF-8 named repository is read-only; a plain directory of such a name runs", async () => {
      const workspace = await workspaceWithRepository();
      const local = await sh(attackRun(workspace, "local"), PLANT);
      expect(local.stdout).toBe("planted");
      expect(config(workspace)).toContain("fsmonitor");
      // The directory of such a name keeps no git state: commands run, the UTF-8 repository is protected.
      execFileSync("bash", ["-c", `rm -rf "$(printf 'v\\377')/.git" && mkdir -p "$(printf 'v\\377')/sub"`], { cwd: workspace });
      const utf = await sh(attackRun(workspace, "workspace"), "echo ran; printf x >> utf/.git/config && echo planted");
      expect(utf.stdout).toBe("ran");
      expect(utf.stderr).toContain("Read-only file system");
    });
  },
);
