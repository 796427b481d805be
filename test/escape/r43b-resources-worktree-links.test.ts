/**
 * Red team round 43, found late: a symbolic link a command leaves where the next spawn binds a git
 * directory (or one of its control files) read-only or pins it. The spawn scan refuses a link
 * there (a mount follows it), so one the after-command walk kept, because it led inside the
 * workspace (`ln -s ../../inner .git/worktrees/x`, the same among `.git/modules/`), had every later
 * command of the workspace refused (`sandbox_unavailable`): one command stopped all the others.
 * Each such link is now moved aside after the command, with a note and the `mv` that restores it.
 */
import { existsSync, readlinkSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { hostGitOutput } from "./support/host-git.js";
import { oneCommitPlayground } from "./support/one-commit-playground.js";
import { attackRun, type Playground, quote, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const git = capability("git");

/** A commit identity for commands run in the sandbox. */
const ID = "-c user.email=m@example.com -c user.name=M";

describe.skipIf(bubblewrap.missing || git.missing)(
  bubblewrap.label("escape attempts: round 43, links where the next spawn pins git state"),
  () => {
    const grounds: Playground[] = [];
    afterEach(async () => {
      for (const ground of grounds.splice(0)) await ground.dispose();
    });

    /** The `plant` command, then two more: what each printed (a refused spawn prints no `second`/`third`). */
    async function plantThenRun(plant: string | ((outside: string) => string)) {
      const { ground, root } = await oneCommitPlayground(grounds);
      const command = typeof plant === "string" ? plant : plant(ground.outside);
      const first = await sh(attackRun(root, "workspace"), `${command} && echo made`);
      expect(first.stdout, first.text).toContain("made");
      const second = await sh(attackRun(root, "workspace"), "echo second");
      const third = await sh(attackRun(root, "workspace"), "echo third");
      return { root, first, second, third };
    }

    escapeAttempt(
      "resources",
      "a link leading inside the workspace among .git/worktrees/* or .git/modules/*: every later command of the workspace refused",
      async () => {
        // Beside them, a link leading out among `modules/` (round 41), which was moved aside into
        // `modules/` itself, where the spawn's listing refused it the same way.
        const denied = await plantThenRun(
          (outside) =>
            "mkdir -p inner .git/modules/nested .git/worktrees && ln -s ../../inner .git/worktrees/x && " +
            "ln -s ../../inner .git/modules/x && ln -s ../../../inner .git/modules/nested/y && " +
            `ln -s ${quote(outside)} .git/modules/out`,
        );
        expect(denied.first.text).toContain("[moved aside .git/modules/out: a symbolic link in a git directory leading out");
        expect(denied.first.text).toContain("-> .git/atc-quarantine-link-modules-out-");
        expect(denied.second.stdout, denied.second.text).toBe("second");
        expect(denied.third.stdout, denied.third.text).toBe("third");
        for (const place of [".git/worktrees/x", ".git/modules/x", ".git/modules/nested/y"]) {
          expect(denied.first.text).toContain(`[moved aside ${place}: a symbolic link where the sandbox binds`);
          expect(existsSync(path.join(denied.root, place))).toBe(false);
        }
        // The note's `mv` puts the link back, as it was (the user's to review).
        const restore = /mv '(\.git\/atc-quarantine-unpinnable-worktrees-x-[^']+)' '\.git\/worktrees\/x'/.exec(denied.first.text);
        expect(restore, denied.first.text).not.toBeNull();
        expect(readlinkSync(path.join(denied.root, restore?.[1] as string))).toBe("../../inner");
        // Control: a real `git worktree add` and `git submodule add` by a command keep working, for
        // later commands and for host git.
        const { root } = await oneCommitPlayground(grounds);
        const made = await sh(
          attackRun(root, "workspace"),
          `git worktree add -q -b side wt && git init -q lib && git -C lib ${ID} commit -q --allow-empty -m l && ` +
            `git -c protocol.file.allow=always submodule add -q ./lib sub && git ${ID} commit -qm s && echo made`,
        );
        expect(made.stdout, made.text).toContain("made");
        expect(made.text).not.toContain("[moved aside");
        const later = await sh(attackRun(root, "workspace"), "git -C wt log --format=%s -1 && git -C sub log --format=%s -1");
        expect(later.stdout, later.text).toBe("a\nl");
        expect(hostGitOutput(path.join(root, "wt"), ["log", "--format=%s", "-1"])).toBe("a\n");
        expect(hostGitOutput(path.join(root, "sub"), ["log", "--format=%s", "-1"])).toBe("l\n");
        // Listed in the index (not initialised: the workspace's `.git/config` is read-only to the command).
        expect(hostGitOutput(root, ["submodule", "status"])).toMatch(/^.[0-9a-f]{40} sub/);
      },
      60_000,
    );

    escapeAttempt(
      "resources",
      "a link leading inside the workspace where the spawn binds a git directory's state read-only (.git in a work tree, info, objects, objects/info, rebase-merge, modules/* of a new repository, a HEAD git accepts): every later command refused",
      async () => {
        const denied = await plantThenRun(
          "git init -q real && mkdir d sub && ln -s ../real/.git sub/.git && " +
            "git init -q new && rm -rf new/.git/info new/.git/objects/info && ln -s ../../d new/.git/info && " +
            "ln -s ../../../d new/.git/objects/info && ln -s ../../d new/.git/rebase-merge && " +
            "mkdir new/.git/modules && ln -s ../../../d new/.git/modules/m && " +
            "git init -q new2 && mv new2/.git/objects objs && ln -s ../../objs new2/.git/objects && " +
            "mkdir -p bare/refs/heads bare/objects && git rev-parse HEAD > bare/refs/heads/main && ln -s refs/heads/main bare/HEAD",
        );
        expect(denied.second.stdout, denied.second.text).toBe("second");
        expect(denied.third.stdout, denied.third.text).toBe("third");
        for (const place of [
          "sub/.git",
          "new/.git/info",
          "new/.git/objects/info",
          "new/.git/rebase-merge",
          "new/.git/modules/m",
          "new2/.git/objects",
          "bare/HEAD",
        ])
          expect(denied.first.text).toContain(`[moved aside ${place}: a symbolic link where the sandbox binds`);
        // Controls: the same places made as git makes them are kept, and a `.git/HEAD` link (which
        // the spawn leaves writable) is neither moved nor refused.
        const kept = await plantThenRun(
          "git init -q real && git init -q new && ln -sf refs/heads/main .git/HEAD && git -C real rev-parse --git-dir",
        );
        expect(kept.first.text).not.toContain("[moved aside");
        expect(kept.third.stdout, kept.third.text).toBe("third");
        expect(readlinkSync(path.join(kept.root, ".git", "HEAD"))).toBe("refs/heads/main");
      },
      60_000,
    );
  },
);
