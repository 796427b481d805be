/**
 * Red team round 32: descriptors that name a file without opening it. `O_PATH` opens need no
 * read or write permission and are not the open calls a filter sees with write flags; the
 * descriptor is then opened again through `/proc/self/fd/N` (or `/proc/thread-self/fd/N`,
 * `/dev/fd/N`), which the kernel resolves as a magic link to the file itself, not by its path. A
 * sandboxed command that upgraded such a descriptor to a writable one would write the read-only
 * parts of the workspace (a host's `readOnlyPaths` entry, the repository's `.git/config` and
 * hooks). `openat2` is the other new way to open: its `RESOLVE_*` flags change how a path is
 * walked. Held when: every reopen of a read-only entry is refused and the files are unchanged,
 * and `openat2` opens nothing outside (the filter answers it `ENOSYS`, as its mode is out of its
 * reach) while the outside file stays unseen. Controls: the same program writes a workspace file
 * through the same reopen inside the sandbox, and unsandboxed writes every read-only target and
 * reads the outside file through `openat2`.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { BubblewrapSandbox } from "../../src/tools/sandbox/bubblewrap-sandbox.js";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { type Playground, playground, quote, spawnIn } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");

/**
 * For each argument `file` or `dir//name`: an `O_PATH` descriptor of `file` (or `dir`), then an
 * append through each magic link to it (to `name` inside it, created), one line per try.
 */
const REOPEN = `for my $t (@ARGV) {
  my ($dir, $name) = split m{//}, $t, 2; my $p;
  if (!sysopen($p, $dir, 010000000)) { print "$t opath:$!\\n"; next }
  my $fd = fileno($p);
  for my $via ("/proc/self/fd/$fd", "/proc/thread-self/fd/$fd", "/dev/fd/$fd") {
    my $target = defined $name ? "$via/$name" : $via;
    if (open(my $w, ">>", $target)) { print $w "PLANTED\\n"; close($w); print "$t written\\n" } else { print "$t refused\\n" }
  }
}`;

/** `openat2(AT_FDCWD, path, {flags: O_RDONLY, resolve})` for each RESOLVE_* set, and what it read. */
const OPENAT2 = `my $target = shift @ARGV;
for my $resolve (0, 0x01, 0x02, 0x04, 0x08, 0x10) {
  my $fd = syscall(437, -100, $target, pack("QQQ", 0, 0, $resolve), 24);
  if ($fd < 0) { print "openat2 $resolve: $!\\n" } else { open(my $h, "<&=", $fd); print "openat2 $resolve: ", scalar(<$h>) }
}
my $p; print sysopen($p, $target, 010000000) ? "opath: opened\\n" : "opath: $!\\n";`;

const perl = (program: string, args: readonly string[]) => `perl -e ${quote(program)} ${args.map(quote).join(" ")}`;

describe.skipIf(bubblewrap.missing)(bubblewrap.label("escape attempts: round 32, O_PATH reopens and openat2"), () => {
  let ground: Playground;
  beforeAll(async () => {
    ground = await playground();
  });
  afterAll(async () => ground.dispose());

  /** A fresh repository in the workspace with a read-only entry `vendor/` beside `notes.txt`. */
  function layout(name: string): {
    repo: string;
    targets: { entryFile: string; entryDirectory: string; gitConfig: string; gitHooks: string };
  } {
    const repo = path.join(ground.workspace, name);
    mkdirSync(path.join(repo, "vendor"), { recursive: true });
    execFileSync("git", ["init", "-q", repo]);
    writeFileSync(path.join(repo, "vendor", "lib.js"), "kept\n");
    writeFileSync(path.join(repo, "notes.txt"), "notes\n");
    return {
      repo,
      targets: {
        entryFile: path.join(repo, "vendor", "lib.js"),
        entryDirectory: `${path.join(repo, "vendor")}//planted.js`,
        gitConfig: path.join(repo, ".git", "config"),
        gitHooks: `${path.join(repo, ".git", "hooks")}//pre-commit`,
      },
    };
  }

  escapeAttempt(
    "privileges",
    "an O_PATH descriptor of a read-only entry (readOnlyPaths, .git/config, .git/hooks) reopened for writing through /proc/self/fd, /proc/thread-self/fd, /dev/fd",
    async () => {
      const { repo, targets } = layout("reopen");
      const config = readFileSync(targets.gitConfig, "utf8");
      const sandbox = new BubblewrapSandbox({
        scope: "workspace",
        workspace: ground.workspace,
        readOnlyPaths: [path.join(repo, "vendor")],
      });
      const answer = await spawnIn(sandbox, perl(REOPEN, [...Object.values(targets), path.join(repo, "notes.txt")]));
      const lines = answer.trim().split("\n");
      // Every read-only target was named (an O_PATH open needs no permission) and every reopen refused.
      for (const target of Object.values(targets)) {
        expect(
          lines.filter((line) => line.startsWith(`${target} `)),
          answer,
        ).toEqual(Array(3).fill(`${target} refused`));
      }
      expect(readFileSync(targets.entryFile, "utf8")).toBe("kept\n");
      expect(readFileSync(targets.gitConfig, "utf8")).toBe(config);
      expect(readdirSync(path.join(repo, "vendor"))).toEqual(["lib.js"]);
      expect(readdirSync(path.join(repo, ".git", "hooks")).includes("pre-commit")).toBe(false);
      // Control inside: the same reopen of a workspace file writes it, three times.
      expect(lines.filter((line) => line === `${path.join(repo, "notes.txt")} written`)).toHaveLength(3);
      expect(readFileSync(path.join(repo, "notes.txt"), "utf8")).toBe(`notes\n${"PLANTED\n".repeat(3)}`);
      // Control unsandboxed: the mechanism writes every one of the targets.
      const control = layout("reopen-control");
      const host = execFileSync("bash", ["-c", perl(REOPEN, Object.values(control.targets))], { encoding: "utf8" });
      expect(
        host
          .trim()
          .split("\n")
          .filter((line) => line.endsWith(" written")),
      ).toHaveLength(12);
      expect(readFileSync(control.targets.gitConfig, "utf8")).toContain("PLANTED");
    },
    60_000,
  );

  escapeAttempt(
    "paths",
    "openat2 with each RESOLVE_* flag, and an O_PATH open, of a host file outside the workspace (directly and through a link in it)",
    async () => {
      const secret = path.join(ground.outside, "secret-r32.txt");
      writeFileSync(secret, "outside-secret-r32\n");
      const link = path.join(ground.workspace, "to-secret");
      execFileSync("ln", ["-sfn", secret, link]);
      const sandbox = new BubblewrapSandbox({ scope: "workspace", workspace: ground.workspace });
      for (const target of [secret, link]) {
        const answer = await spawnIn(sandbox, perl(OPENAT2, [target]));
        expect(answer).not.toContain("outside-secret-r32");
        // The filter answers openat2 as a call the kernel lacks, whatever its flags.
        expect(answer.match(/^openat2 \d+: Function not implemented$/gm)).toHaveLength(6);
        expect(answer).toMatch(/^opath: No such file or directory$/m);
      }
      // Control unsandboxed: openat2 reads the file (flag 0; the others refuse the walk or succeed).
      const host = execFileSync("bash", ["-c", perl(OPENAT2, [secret])], { encoding: "utf8" });
      expect(host).toContain("openat2 0: outside-secret-r32");
      expect(host).toContain("opath: opened");
    },
    60_000,
  );
});
