/**
 * The gitlink quarantine (gitlink-quarantine.ts) moves aside a `.git` at a gitlink that was not
 * there at spawn, since host `git status` enters it with its own config. The sandbox cannot tell
 * who made a `.git`: one the user makes on the host while a command runs (a clone into an
 * uninitialised submodule's directory, `git submodule update --init`) was moved away from them
 * too. Now only a repository holding something host git would run that the command could have
 * planted (hooks, a config key outside git's own, a foreign `commondir`, submodules of its own)
 * is moved; what `git init`/`git clone` leave stays in place. The planted cases stay moved.
 */
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, quote, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const git = capability("git");

function hostGit(cwd: string, args: readonly string[]): string {
  return execFileSync(
    "git",
    ["-c", "user.email=a@example.com", "-c", "user.name=A", "-c", "protocol.file.allow=always", ...args],
    {
      cwd,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 20_000,
    },
  );
}

/** A repository with one commit in `directory`; its commit id. */
function repository(directory: string): string {
  mkdirSync(directory, { recursive: true });
  hostGit(directory, ["init", "-q", "-b", "main"]);
  writeFileSync(path.join(directory, "a.txt"), "a\n");
  hostGit(directory, ["add", "a.txt"]);
  hostGit(directory, ["commit", "-q", "-m", "init"]);
  return hostGit(directory, ["rev-parse", "HEAD"]).trim();
}

/** A command that waits (up to 20 s) for `lib/.git` to appear, as the user makes it on the host meanwhile. */
const WAIT_FOR_LIB = ": > started; for i in $(seq 200); do [ -e lib/.git ] && break; sleep 0.1; done; sleep 0.3; echo seen";

/**
 * Resolves once the command runs (it made `started`): the host's change below must come while the
 * command runs, not while its sandbox is still being set up (a fixed 300 ms was not enough at load
 * 20-26, and a change then is refused by the mount check, fail-closed, which is another test's case).
 */
async function commandStarted(root: string): Promise<void> {
  const marker = path.join(root, "started");
  for (const until = Date.now() + 30_000; !existsSync(marker); ) {
    if (Date.now() > until) throw new Error("the command did not start within 30 s");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.skipIf(bubblewrap.missing || git.missing)(
  bubblewrap.label("a repository the user makes at a gitlink during a command"),
  () => {
    const grounds: Playground[] = [];
    afterEach(async () => {
      for (const ground of grounds.splice(0)) await ground.dispose();
    });

    /**
     * A workspace repository with `lib` an uninitialised submodule (of `source`, a repository in
     * the workspace: a clone whose `remote.origin.url` names a host repository outside it has its
     * config moved aside, as one a command makes, r36b-git-metadata-remote-url.test.ts).
     */
    async function withSubmodule(): Promise<{ root: string; source: string }> {
      const ground = await playground();
      grounds.push(ground);
      const root = ground.workspace;
      const source = path.join(root, "upstream");
      repository(source);
      repository(root);
      hostGit(root, ["submodule", "add", "-q", source, "lib"]);
      hostGit(root, ["commit", "-q", "-m", "lib"]);
      hostGit(root, ["submodule", "deinit", "-q", "-f", "lib"]);
      execFileSync("rm", ["-rf", path.join(root, ".git", "modules", "lib")]);
      expect(existsSync(path.join(root, "lib", ".git"))).toBe(false);
      return { root, source };
    }

    it("a clone the user makes on the host into a submodule's directory while a command runs stays in place", async () => {
      const { root, source } = await withSubmodule();
      const call = sh(attackRun(root, "workspace"), WAIT_FOR_LIB);
      // The user, on the host, meanwhile.
      await commandStarted(root);
      execFileSync("rm", ["-rf", path.join(root, "lib")]);
      hostGit(root, ["clone", "-q", source, "lib"]);
      const result = await call;
      expect(result.stdout, result.text).toContain("seen");
      expect(result.text).not.toContain("moved aside");
      expect(lstatSync(path.join(root, "lib", ".git")).isDirectory()).toBe(true);
      expect(hostGit(path.join(root, "lib"), ["log", "--format=%s"]).trim()).toBe("init");
    }, 60_000);

    it("git submodule update --init on the host while a command runs: the .git file and the new modules/lib stay", async () => {
      const { root } = await withSubmodule();
      const call = sh(attackRun(root, "workspace"), WAIT_FOR_LIB);
      await commandStarted(root);
      hostGit(root, ["submodule", "update", "-q", "--init"]);
      const result = await call;
      expect(result.stdout, result.text).toContain("seen");
      expect(result.text).not.toContain("moved aside");
      expect(lstatSync(path.join(root, "lib", ".git")).isFile()).toBe(true);
      expect(existsSync(path.join(root, ".git", "modules", "lib", "config"))).toBe(true);
      expect(hostGit(path.join(root, "lib"), ["log", "--format=%s"]).trim()).toBe("init");
    }, 60_000);

    // The same places, with what a command plants: still moved aside whole (controls of the above).
    for (const [name, plant] of [
      ["a hook", "printf '#!/bin/sh\\ntouch \"$M\"\\n' > lib/.git/hooks/post-checkout && chmod +x lib/.git/hooks/post-checkout"],
      ["a core.fsmonitor", 'git -C lib config core.fsmonitor "touch $M; false"'],
      [
        "a nested repository of its own (a gitlink in its index)",
        "git init -q lib/inner && git -C lib/inner -c user.email=a@b -c user.name=a commit -q --allow-empty -m i && git -C lib add inner",
      ],
    ] as const) {
      escapeAttempt(
        "git-metadata",
        `a clone at a submodule's directory with ${name}: moved aside whole`,
        async () => {
          const { root } = await withSubmodule();
          const ground = grounds[grounds.length - 1] as Playground;
          const marker = path.join(ground.outside, "fired");
          // A source the sandbox can read (the outside is not visible inside).
          repository(path.join(root, "origin"));
          const result = await sh(
            attackRun(root, "workspace"),
            `M=${quote(marker)}; rmdir lib && git clone -q origin lib && ${plant} && echo planted`,
          );
          expect(result.stdout, result.text).toContain("planted");
          expect(result.text).toContain("[moved aside a git repository at a gitlink");
          expect(existsSync(path.join(root, "lib", ".git"))).toBe(false);
          hostGit(root, ["status"]);
          expect(existsSync(marker)).toBe(false);
        },
        60_000,
      );
    }
  },
);
