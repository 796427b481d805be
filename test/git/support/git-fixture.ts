import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import {
  closeSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { GIT_MALLOC } from "./git-malloc.js";

/**
 * Config that makes every git call here the same on every machine (no user or system config).
 * `maintenance.auto=false`: git commit and git merge otherwise start `git maintenance run --auto`
 * after each commit, a second process per commit that never finds work in these small
 * repositories (gc --auto waits for 6,700 loose objects), a third of a builder's processes.
 */
const CONFIG = [
  "-c",
  "maintenance.auto=false",
  "-c",
  "user.name=Fixture",
  "-c",
  "user.email=fixture@example.com",
  "-c",
  "commit.gpgsign=false",
  "-c",
  "tag.gpgsign=false",
  "-c",
  "init.defaultBranch=main",
  "-c",
  "core.autocrlf=false",
  "-c",
  "merge.ff=false",
];

/** Every fixture git process's environment; GLIBC_TUNABLES: see support/git-malloc.ts. */
const ENVIRONMENT = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  GLIBC_TUNABLES: GIT_MALLOC,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  LANG: "C",
  LC_ALL: "C",
  TZ: "UTC",
};

/** A person and a moment, for a deterministic commit. */
export interface Author {
  readonly name: string;
  readonly email: string;
}

/** Runs git in `cwd` with fixed config; returns stdout. Through the file's git session when it has one. */
export function git(cwd: string, args: readonly string[], extraEnvironment: Readonly<Record<string, string>> = {}): string {
  if (session !== undefined) return session.run(cwd, args, extraEnvironment);
  return execFileSync("git", [...CONFIG, ...args], {
    cwd,
    env: { ...ENVIRONMENT, ...extraEnvironment },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
}

/**
 * One long-lived `sh` that runs a test file's git commands, one at a time, for {@link git}. A
 * spawn from the test's large process costs more CPU than most git commands here (10-20 ms of
 * CPU per spawn measured on this machine, against ~5 ms for a commit in a small repository);
 * from the small shell a fork costs little. Each command gets what execFileSync gave it: the
 * same arguments and config, exactly ENVIRONMENT plus the call's variables (the shell's own PWD
 * and OLDPWD unset), `cwd`, an empty stdin; its stdout comes back, its stderr goes to the test's
 * stderr, and a non-zero exit throws with the stderr in the message, as execFileSync throws.
 * Requests go down one FIFO; each exit status comes back up another, read synchronously.
 */
class GitSession {
  private constructor(
    private readonly child: ChildProcess,
    private readonly scratch: string,
    private readonly requests: number,
    private readonly statuses: number,
  ) {}

  static start(): GitSession {
    const scratch = mkdtempSync(path.join(tmpdir(), "atc-git-session-"));
    const requestPath = path.join(scratch, "requests");
    const statusPath = path.join(scratch, "statuses");
    execFileSync("mkfifo", [requestPath, statusPath]);
    // The shell opens the status FIFO for writing, then reads its script from the request FIFO;
    // each open blocks until this process opens the other end (below, in the same order).
    const child = spawn("sh", ["-c", 'exec 4>"$2"; exec sh -s <"$1"', "sh", requestPath, statusPath], {
      env: ENVIRONMENT,
      stdio: ["ignore", "ignore", "inherit"],
    });
    if (child.pid === undefined) throw new Error("could not start the git session's shell");
    const statuses = openSync(statusPath, "r");
    const requests = openSync(requestPath, "w");
    return new GitSession(child, scratch, requests, statuses);
  }

  run(cwd: string, args: readonly string[], extraEnvironment: Readonly<Record<string, string>>): string {
    const out = path.join(this.scratch, "out");
    const err = path.join(this.scratch, "err");
    const assignments = Object.entries(extraEnvironment).map(([key, value]) => `${key}=${shellWord(value)} `);
    const command = `git ${[...CONFIG, ...args].map(shellWord).join(" ")}`;
    writeSync(
      this.requests,
      `{ cd ${shellWord(cwd)} && unset PWD OLDPWD && ${assignments.join("")}${command}; } </dev/null >${shellWord(out)} 2>${shellWord(err)}; echo $? >&4\n`,
    );
    const status = this.readStatus();
    const stdout = readFileSync(out, "utf8");
    const stderr = readFileSync(err, "utf8");
    if (stderr !== "") process.stderr.write(stderr);
    if (status !== 0) {
      const error = new Error(`Command failed: git ${[...CONFIG, ...args].join(" ")}\n${stderr}`);
      Object.assign(error, { status, stdout, stderr });
      throw error;
    }
    return stdout;
  }

  private readStatus(): number {
    const buffer = Buffer.alloc(16);
    let line = "";
    while (!line.endsWith("\n")) {
      const count = readSync(this.statuses, buffer, 0, buffer.length, null);
      if (count === 0) throw new Error("the git session's shell exited");
      line += buffer.toString("latin1", 0, count);
    }
    return Number(line.trim());
  }

  /** Ends the shell (the end of its script) and waits for it, so its CPU and its commands' count as this process's children. */
  async close(): Promise<void> {
    const exited = new Promise<void>((resolve) => {
      if (this.child.exitCode !== null || this.child.signalCode !== null) resolve();
      else this.child.once("exit", () => resolve());
    });
    closeSync(this.requests);
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(timer);
    closeSync(this.statuses);
    rmSync(this.scratch, { recursive: true, force: true });
  }
}

let session: GitSession | undefined;

/**
 * Runs the calling test file's {@link git} commands through one long-lived shell (started before
 * its tests, ended and waited for after them) instead of a spawn each. Call at the file's top level.
 */
export function useGitSession(): void {
  beforeAll(() => {
    session ??= GitSession.start();
  });
  afterAll(async () => {
    const ending = session;
    session = undefined;
    await ending?.close();
  });
}

/**
 * Runs the shell script `script` in `cwd` (stdin `input`), its git commands under the same fixed
 * config as {@link git} (passed by `GIT_CONFIG_COUNT`); returns stdout. One process from the test
 * for many git commands: a spawn from the test's large process costs more than the command.
 */
export function gitShell(cwd: string, script: string, input?: string): string {
  const pairs: [string, string][] = [];
  for (let index = 1; index < CONFIG.length; index += 2) {
    const [key, value] = (CONFIG[index] as string).split("=") as [string, string];
    pairs.push([key, value]);
  }
  const config = Object.fromEntries(
    pairs.flatMap(([key, value], index) => [
      [`GIT_CONFIG_KEY_${index}`, key],
      [`GIT_CONFIG_VALUE_${index}`, value],
    ]),
  );
  return execFileSync("sh", ["-c", script], {
    cwd,
    env: { ...ENVIRONMENT, GIT_CONFIG_COUNT: String(pairs.length), ...config },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    ...(input === undefined ? {} : { input }),
  });
}

/** What one command of {@link gitMany} gave: whether it exited 0, and its stdout. */
export interface GitAnswer {
  readonly ok: boolean;
  readonly stdout: string;
}

/** `text` as one shell word. */
const shellWord = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/**
 * Runs each `git <args>` of `commands` in `cwd` as {@link git} would (same config, same
 * environment), from one shell: each command's stdout and exit status go to a file, read back
 * here. For read-only queries of a built repository (any bytes in the output, NUL included).
 */
export function gitMany(cwd: string, commands: readonly (readonly string[])[]): GitAnswer[] {
  const outputs = mkdtempSync(path.join(tmpdir(), "atc-git-many-"));
  try {
    const script = commands
      .map(
        (args, index) =>
          `git ${[...CONFIG, ...args].map(shellWord).join(" ")} > ${shellWord(path.join(outputs, String(index)))}; echo $? > ${shellWord(path.join(outputs, `${index}.status`))}`,
      )
      .join("\n");
    execFileSync("sh", ["-c", script], { cwd, env: ENVIRONMENT, stdio: ["ignore", "ignore", "ignore"] });
    return commands.map((_, index) => ({
      ok: readFileSync(path.join(outputs, `${index}.status`), "utf8").trim() === "0",
      stdout: readFileSync(path.join(outputs, String(index)), "utf8"),
    }));
  } finally {
    rmSync(outputs, { recursive: true, force: true });
  }
}

/** A fresh temporary directory. */
export function temporaryDirectory(prefix: string): string {
  return mkdtempSync(path.join(tmpdir(), `atc-git-${prefix}-`));
}

/**
 * A copy of the repository at `source` in a new temporary directory (objects, refs, index and
 * working tree byte for byte): for a second reading of a fixture built once (packed by `git gc`
 * after, say), instead of building it again command by command.
 */
export function copyRepository(source: string, prefix: string): string {
  const directory = temporaryDirectory(prefix);
  cpSync(source, directory, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
  return directory;
}

/** Removes a temporary directory. */
export function removeDirectory(directory: string): void {
  rmSync(directory, { recursive: true, force: true });
}

/** A repository under construction, with a clock that moves one day per commit. */
export class FixtureRepository {
  private day = 0;

  constructor(readonly directory: string) {}

  /** `git init` in a new temporary directory. */
  static create(prefix: string): FixtureRepository {
    const directory = temporaryDirectory(prefix);
    git(directory, ["init", "-q"]);
    return new FixtureRepository(directory);
  }

  /** Writes a file (parents created). */
  write(file: string, content: string | Buffer): this {
    const target = path.join(this.directory, file);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, content);
    return this;
  }

  /** Moves a file (parents of the target created); the next commit records it. */
  move(from: string, to: string): this {
    const target = path.join(this.directory, to);
    mkdirSync(path.dirname(target), { recursive: true });
    renameSync(path.join(this.directory, from), target);
    return this;
  }

  /** Deletes a file; the next commit records it. */
  remove(file: string): this {
    rmSync(path.join(this.directory, file));
    return this;
  }

  /** Runs git here. */
  git(...args: string[]): string {
    return git(this.directory, args, this.dates());
  }

  private dates(zone = "+0100"): Record<string, string> {
    const day = new Date(Date.UTC(2024, 0, 1 + this.day)).toISOString().slice(0, 10);
    const date = `${day}T12:00:00 ${zone}`;
    return { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date };
  }

  /** Stages everything and commits as `author`, one day after the previous commit. */
  commit(message: string, author: Author, zone = "+0100"): string {
    git(this.directory, ["add", "-A"]);
    return this.commitIndex(message, author, zone);
  }

  /** Commits the index as it is (nothing staged from the working tree). */
  commitIndex(message: string, author: Author, zone = "+0100"): string {
    this.day++;
    git(this.directory, ["commit", "-q", "--allow-empty", "-m", message], {
      ...this.dates(zone),
      GIT_AUTHOR_NAME: author.name,
      GIT_AUTHOR_EMAIL: author.email,
      GIT_COMMITTER_NAME: author.name,
      GIT_COMMITTER_EMAIL: author.email,
    });
    return this.head();
  }

  /** Merges `branch` into the current branch with a merge commit; conflicts resolve to `branch`'s side. */
  merge(branch: string, message: string, author: Author): string {
    this.day++;
    git(this.directory, ["merge", "-q", "--no-ff", "-X", "theirs", "-m", message, branch], {
      ...this.dates(),
      GIT_AUTHOR_NAME: author.name,
      GIT_AUTHOR_EMAIL: author.email,
      GIT_COMMITTER_NAME: author.name,
      GIT_COMMITTER_EMAIL: author.email,
    });
    return this.head();
  }

  /** The commit id of HEAD. */
  head(): string {
    return git(this.directory, ["rev-parse", "HEAD"]).trim();
  }
}
