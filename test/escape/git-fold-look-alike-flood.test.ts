/**
 * Look-alikes of git's names in a git directory (`CONFIG.WORKTREE`, `Config.Worktree`, ...) are
 * each bound read-only at spawn, and what a command made is moved aside after it into an
 * `atc-quarantine-*` entry, also bound one by one. Both were bounded at 64 per git directory by
 * refusing the spawn (`sandbox_unavailable`): one command making 65 of them denied every later
 * command of the run. Past the bound they are now gathered into one new quarantine directory,
 * bound read-only instead, so the run keeps working and the look-alikes still cannot be written.
 * Positive controls: an ordinary name beside them stays writable and untouched, and git works.
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { committedWorkspaces } from "./support/committed-workspaces.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { hostGit } from "./support/host-git.js";
import { attackRun, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const git = capability("git");

/** `count` distinct spellings of `config.worktree` (case variants), none the name itself. */
function lookAlikes(count: number): string[] {
  const letters = "config.worktree";
  return Array.from({ length: count }, (_, index) => {
    let bit = 0;
    return [...letters]
      .map((character) => {
        if (character === ".") return character;
        const upper = ((index + 1) >> bit++) & 1;
        return upper === 1 ? character.toUpperCase() : character;
      })
      .join("");
  });
}

/**
 * For each name of `names.txt` (in the workspace), where it is now in `.git`: at its name, or in
 * a gathered quarantine; tries to append to it and prints how many were found and written.
 */
const TRY_WRITES = [
  "cd .git",
  "found=0; written=0",
  'while IFS= read -r name; do for t in "$name" atc-quarantine-*/"$name"; do [ -e "$t" ] || continue; found=$((found+1)); (echo x >> "$t") 2>/dev/null && written=$((written+1)); break; done; done < ../names.txt',
  'echo "found=$found written=$written"',
].join("; ");

describe.skipIf(bubblewrap.missing || git.missing)(bubblewrap.label("escape attempts: a flood of look-alikes"), () => {
  const committed = committedWorkspaces();
  async function workspace(): Promise<string> {
    const root = await committed();
    writeFileSync(path.join(root, ".git", "NOTES.TXT"), "note\n");
    return root;
  }

  /** Where each name is now under `.git` (at its name or gathered), read. */
  function contents(gitDirectory: string, names: readonly string[]): string[] {
    const gathered = readdirSync(gitDirectory).filter((entry) => entry.startsWith("atc-quarantine-"));
    return names.map((name) => {
      for (const where of [name, ...gathered.map((directory) => path.join(directory, name))]) {
        try {
          return readFileSync(path.join(gitDirectory, where), "utf8");
        } catch {
          // Not there.
        }
      }
      return "missing";
    });
  }

  for (const count of [65, 1000]) {
    escapeAttempt(
      "git-metadata",
      `${count} look-alikes present at spawn: the spawn works and none can be written`,
      async () => {
        const root = await workspace();
        const gitDirectory = path.join(root, ".git");
        const names = lookAlikes(count);
        for (const name of names) writeFileSync(path.join(gitDirectory, name), "the user's\n");
        writeFileSync(path.join(root, "names.txt"), `${names.join("\n")}\n`);
        const run = attackRun(root, "workspace");
        const result = await sh(run, TRY_WRITES);
        expect(result.status, result.text).toBe("exit code 0");
        expect(result.stdout, result.text).toContain(`found=${count} written=0`);
        expect(new Set(contents(gitDirectory, names))).toEqual(new Set(["the user's\n"]));
        // Positive control: an ordinary name beside them is written, git works, the next spawn too.
        const control = await sh(run, "echo changed > .git/NOTES.TXT && git status --short >/dev/null && echo wrote");
        expect(control.stdout, control.text).toContain("wrote");
        expect(readFileSync(path.join(gitDirectory, "NOTES.TXT"), "utf8")).toBe("changed\n");
        expect(hostGit(root, ["log", "--format=%s"]).trim()).toBe("init");
      },
      180_000,
    );
  }

  escapeAttempt(
    "git-metadata",
    "1,000 look-alikes a command makes are moved aside and the next spawn works, each read-only",
    async () => {
      const root = await workspace();
      const gitDirectory = path.join(root, ".git");
      const names = lookAlikes(1000);
      writeFileSync(path.join(root, "names.txt"), `${names.join("\n")}\n`);
      const run = attackRun(root, "workspace");
      const made = await sh(run, 'cd .git && while IFS= read -r name; do echo evil > "$name"; done < ../names.txt && echo made');
      expect(made.stdout, made.text).toContain("made");
      expect(names.filter((name) => readdirSync(gitDirectory).includes(name))).toEqual([]);
      // 1,000 quarantines: the next spawn gathers those past the bound into one and works.
      const next = await sh(
        run,
        'cd .git && n=0; w=0; for t in atc-quarantine-*/atc-quarantine-* atc-quarantine-*; do [ -f "$t" ] || continue; n=$((n+1)); (echo x >> "$t") 2>/dev/null && w=$((w+1)); done; echo "files=$n written=$w"',
      );
      expect(next.status, next.text).toBe("exit code 0");
      expect(next.stdout, next.text).toContain("files=1000 written=0");
      const control = await sh(run, "echo changed > .git/NOTES.TXT && echo wrote");
      expect(control.stdout, control.text).toContain("wrote");
    },
    180_000,
  );
});
