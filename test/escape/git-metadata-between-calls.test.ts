/**
 * The spawn's scan reuses the previous call's listing of a directory whose identity and times are
 * unchanged, and the walk after a command reuses the scan's: a change between two `bash` calls
 * must still be caught by the next one even where a directory's modification time was set back
 * (`touch -d`), since its change time cannot be: a nested repository the host made, a set-id
 * file the host added or a bit it set on an existing file, and a repository with a hook a
 * command planted and then hid its directory's times. Controls: the listings are reused (so the
 * test runs on the reused path), an ordinary file beside each is written.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { gitScanCounts } from "../../src/tools/sandbox/git-protection.js";
import { capability } from "../support/capabilities.js";
import { shortRacyMargin } from "../support/short-racy-margin.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const git = capability("git");

/** The modification time every `a*\/b*` directory is given, and a command or the host sets back. */
const OLD = "@1600000000";

function hostGit(cwd: string, ...args: string[]): void {
  execFileSync("git", ["-c", "user.email=a@example.com", "-c", "user.name=A", ...args], { cwd, stdio: "ignore" });
}

/** `touch -d OLD` on workspace-relative `targets` (the modification time set back, the change time now). */
function setBack(workspace: string, ...targets: string[]): void {
  execFileSync("touch", ["-d", OLD, ...targets], { cwd: workspace });
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

describe.skipIf(bubblewrap.missing || git.missing)(
  bubblewrap.label(git.label("escape attempts: changes between two calls in directories whose times look unchanged")),
  () => {
    let ground: Playground;
    let restoreRacyMargin: (() => void) | undefined;
    beforeAll(async () => {
      ground = await playground();
      hostGit(ground.workspace, "init", "-q", "-b", "main");
      for (let a = 0; a < 5; a++) {
        for (let b = 0; b < 5; b++) {
          const directory = path.join(ground.workspace, `a${a}`, `b${b}`);
          mkdirSync(directory, { recursive: true });
          for (let f = 0; f < 4; f++) writeFileSync(path.join(directory, `f${f}`), "hello\n");
        }
      }
      execFileSync("bash", ["-c", `touch -d ${OLD} a*/b*`], { cwd: ground.workspace });
      // Listings are reused once their change times are past the racy margin (fine-grained times here).
      restoreRacyMargin = await shortRacyMargin();
    }, 30_000);
    afterAll(async () => {
      restoreRacyMargin?.();
      await ground?.dispose();
    });

    escapeAttempt(
      "git-metadata",
      "a repository and set-id files the host adds between calls, directory times set back",
      async () => {
        const run = attackRun(ground.workspace, "workspace");
        expect((await sh(run, "true")).status).toBe("exit code 0");
        await settle();
        const before = { ...gitScanCounts };
        expect((await sh(run, "true")).status).toBe("exit code 0");
        // Control: the second call reused the first one's listings (the path under test).
        expect(gitScanCounts.reused - before.reused).toBeGreaterThanOrEqual(25);
        expect(gitScanCounts.walkReused - before.walkReused).toBeGreaterThanOrEqual(25);

        hostGit(path.join(ground.workspace, "a1", "b1"), "init", "-q", "nested");
        writeFileSync(path.join(ground.workspace, "a2", "b2", "new-suid"), "hello\n");
        chmodSync(path.join(ground.workspace, "a2", "b2", "new-suid"), 0o4755);
        chmodSync(path.join(ground.workspace, "a3", "b3", "f0"), 0o4755);
        chmodSync(path.join(ground.workspace, "a3", "b4", "f0"), 0o2755);
        // The bits set on existing files change neither directory: a3/b3 and a3/b4 stay reusable.
        setBack(ground.workspace, "a1/b1", "a2/b2");

        const result = await sh(
          run,
          [
            "echo x >> a1/b1/nested/.git/config; echo config=$?",
            "echo x >> a2/b2/new-suid; echo new=$?",
            "echo x >> a3/b3/f0; echo suid=$?",
            "echo x >> a3/b4/f0; echo sgid=$?",
            "echo x >> a3/b3/f1; echo plain=$?",
          ].join("; "),
        );
        expect(result.stdout, result.text).toContain("config=1");
        expect(result.stdout).toContain("new=1");
        expect(result.stdout).toContain("suid=1");
        expect(result.stdout).toContain("sgid=1");
        // Control: an ordinary file of an unchanged directory is written.
        expect(result.stdout).toContain("plain=0");
        expect(readFileSync(path.join(ground.workspace, "a1", "b1", "nested", ".git", "config"), "utf8")).not.toMatch(/^x$/m);
        expect(readFileSync(path.join(ground.workspace, "a3", "b3", "f0"), "utf8")).toBe("hello\n");
        expect(statSync(path.join(ground.workspace, "a3", "b3", "f0")).mode & 0o7777).toBe(0o4755);
        expect(readFileSync(path.join(ground.workspace, "a3", "b3", "f1"), "utf8")).toBe("hello\nx\n");
      },
      60_000,
    );

    escapeAttempt(
      "git-metadata",
      "a repository with a hook a command plants in a cached directory, its times set back",
      async () => {
        const run = attackRun(ground.workspace, "workspace");
        expect((await sh(run, "true")).status).toBe("exit code 0");
        await settle();
        const planted = await sh(
          run,
          [
            "git init -q a4/b4/evil",
            "printf '#!/bin/sh\\necho pwned\\n' > a4/b4/evil/.git/hooks/pre-commit",
            "chmod +x a4/b4/evil/.git/hooks/pre-commit",
            `touch -d ${OLD} a4/b4/evil a4/b4`,
            "echo planted",
          ].join(" && "),
        );
        expect(planted.stdout, planted.text).toBe("planted");
        const gitDirectory = path.join(ground.workspace, "a4", "b4", "evil", ".git");
        // The walk after the command found it: the hooks moved aside, nothing left for host git to run.
        expect(existsSync(path.join(gitDirectory, "hooks", "pre-commit"))).toBe(false);
        expect(readdirSync(gitDirectory).some((name) => name.startsWith("atc-quarantine-hooks-"))).toBe(true);
        // And the next call protects it as any repository present at spawn.
        const next = await sh(run, "echo x >> a4/b4/evil/.git/config; echo config=$?; echo x >> a4/b4/f1; echo plain=$?");
        expect(next.stdout, next.text).toBe("config=1\nplain=0");
      },
      60_000,
    );
  },
);
