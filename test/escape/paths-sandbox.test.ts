/**
 * Escape attempts against the file system boundary of the workspace sandbox, through bash and the
 * read-only file tools. Each attack runs under `workspace`; its control runs the same action
 * `unrestricted` (or shows the vector exists) so a denial is never a broken setup.
 */
import { existsSync } from "node:fs";
import { link, mkdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, outcome, type Playground, playground, quote, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const SECRET = "atc-outside-secret-7f3a";

describe.skipIf(bubblewrap.missing)(bubblewrap.label("escape attempts: paths"), () => {
  let ground: Playground;
  let secretFile: string;
  beforeAll(async () => {
    ground = await playground();
    secretFile = path.join(ground.outside, "secret.txt");
    await writeFile(secretFile, `${SECRET}\n`);
    await writeFile(path.join(ground.workspace, "inside.txt"), "inside\n");
  });
  afterAll(async () => ground.dispose());

  const confined = () => attackRun(ground.workspace, "workspace");
  const open = () => attackRun(ground.workspace, "unrestricted");

  escapeAttempt("paths", "bash writes an absolute path outside the workspace", async () => {
    const target = path.join(ground.outside, "p1.txt");
    await sh(confined(), `echo pwned > ${quote(target)}`);
    expect(existsSync(target)).toBe(false);
    await sh(open(), `echo pwned > ${quote(target)}`);
    expect(existsSync(target)).toBe(true);
  });

  escapeAttempt("paths", "bash reads a file outside the workspace", async () => {
    expect((await sh(confined(), `cat ${quote(secretFile)}`)).stdout).not.toContain(SECRET);
    expect((await sh(open(), `cat ${quote(secretFile)}`)).stdout).toContain(SECRET);
  });

  escapeAttempt("paths", "bash climbs out with ../ from the workspace", async () => {
    const relative = path.relative(ground.workspace, secretFile);
    expect((await sh(confined(), `cat ${quote(relative)}`)).stdout).not.toContain(SECRET);
    expect((await sh(open(), `cat ${quote(relative)}`)).stdout).toContain(SECRET);
  });

  escapeAttempt("paths", "bash writes through a symlink it planted to an outside directory", async () => {
    const target = path.join(ground.outside, "p4.txt");
    await sh(confined(), `ln -sfn ${quote(ground.outside)} out-link && echo pwned > out-link/p4.txt`);
    expect(existsSync(target)).toBe(false);
    await sh(open(), "echo pwned > out-link/p4.txt");
    expect(existsSync(target)).toBe(true);
  });

  escapeAttempt("paths", "bash hard-links an outside file into the workspace", async () => {
    await sh(confined(), `ln ${quote(secretFile)} hard-1 && cat hard-1`);
    expect(existsSync(path.join(ground.workspace, "hard-1"))).toBe(false);
    await sh(open(), `ln ${quote(secretFile)} hard-2`);
    expect(existsSync(path.join(ground.workspace, "hard-2"))).toBe(true);
    await rm(path.join(ground.workspace, "hard-2"));
  });

  escapeAttempt("paths", "bash reaches the host root through /proc/1/root and /proc/self/root", async () => {
    const attack = `cat /proc/1/root${secretFile}; cat /proc/self/root${secretFile}`;
    expect((await sh(confined(), attack)).stdout).not.toContain(SECRET);
    expect((await sh(open(), `cat /proc/self/root${secretFile}`)).stdout).toContain(SECRET);
  });

  escapeAttempt("paths", "bash reaches the host through /proc/<host pid>/root and cwd", async () => {
    const attack = `cat /proc/${process.pid}/root${secretFile}; ls /proc/${process.pid}/cwd/`;
    const result = await sh(confined(), attack);
    expect(result.stdout).not.toContain(SECRET);
    expect(result.stdout).not.toContain("package.json");
    expect((await sh(open(), `cat /proc/${process.pid}/root${secretFile}`)).stdout).toContain(SECRET);
  });

  escapeAttempt("paths", "bash writes the host's /tmp (the sandbox's /tmp is private)", async () => {
    const marker = path.join(ground.outside, "..", `atc-escape-tmp-${process.pid}`);
    try {
      await sh(confined(), `echo pwned > ${quote(marker)}`);
      expect(existsSync(marker)).toBe(false);
      await sh(open(), `echo pwned > ${quote(marker)}`);
      expect(existsSync(marker)).toBe(true);
    } finally {
      await rm(marker, { force: true });
    }
  });

  escapeAttempt("paths", "bash writes a system directory (/usr, /etc are read-only)", async () => {
    const result = await sh(confined(), "touch /usr/atc-escape-marker /etc/atc-escape-marker; echo ok > ws-ok.txt");
    expect(existsSync("/usr/atc-escape-marker") || existsSync("/etc/atc-escape-marker")).toBe(false);
    expect(result.stderr).toMatch(/Read-only file system|Permission denied/);
    // Control: the same command did run (its workspace write landed).
    expect(await readFile(path.join(ground.workspace, "ws-ok.txt"), "utf8")).toBe("ok\n");
  });

  escapeAttempt("paths", "bash with a cwd outside the workspace", async () => {
    expect((await sh(confined(), "pwd", { cwd: ground.outside })).status).toBe("error:path_outside_workspace");
    expect((await sh(open(), "pwd", { cwd: ground.outside })).stdout).toBe(ground.outside);
  });

  escapeAttempt("paths", "bash with a cwd that is a symlink to the outside", async () => {
    await symlink(ground.outside, path.join(ground.workspace, "cwd-link"));
    const result = await sh(confined(), "ls", { cwd: "cwd-link" });
    expect(result.stdout).not.toContain("secret.txt");
    expect((await sh(open(), "ls", { cwd: "cwd-link" })).stdout).toContain("secret.txt");
  });

  escapeAttempt("paths", "ls an absolute outside path", async () => {
    expect(outcome(await confined().call("ls", { path: ground.outside }))).toBe("error:path_outside_workspace");
    expect(outcome(await open().call("ls", { path: ground.outside }))).toContain("secret.txt");
  });

  escapeAttempt("paths", "ls through a symlinked directory", async () => {
    await symlink(ground.outside, path.join(ground.workspace, "ls-link"));
    expect(outcome(await confined().call("ls", { path: "ls-link" }))).not.toContain("secret.txt");
    expect(outcome(await open().call("ls", { path: ground.outside }))).toContain("secret.txt");
  });

  escapeAttempt("paths", "glob from a parent directory", async () => {
    expect(outcome(await confined().call("glob", { pattern: "**/secret.txt", path: ".." }))).toBe("error:path_outside_workspace");
    expect(outcome(await open().call("glob", { pattern: "secret.txt", path: ground.outside }))).toContain("secret.txt");
  });

  escapeAttempt("paths", "glob descends into a symlinked directory", async () => {
    await symlink(ground.outside, path.join(ground.workspace, "glob-link"));
    expect(outcome(await confined().call("glob", { pattern: "**/secret.txt" }))).not.toContain("glob-link/secret.txt");
    expect(outcome(await open().call("glob", { pattern: "**/secret.txt", path: ground.outside }))).toContain("secret.txt");
  });

  escapeAttempt("paths", "grep an outside path", async () => {
    expect(outcome(await confined().call("grep", { pattern: SECRET, path: ground.outside }))).toBe(
      "error:path_outside_workspace",
    );
    expect(outcome(await open().call("grep", { pattern: SECRET, path: ground.outside }))).toContain(SECRET);
  });

  escapeAttempt("paths", "grep through planted symlinks (file and directory), both engines", async () => {
    await symlink(secretFile, path.join(ground.workspace, "grep-file-link"));
    await symlink(ground.outside, path.join(ground.workspace, "grep-dir-link"));
    for (const engine of ["ripgrep", "javascript"] as const) {
      const run = attackRun(ground.workspace, "workspace", { grep: { engine } });
      expect(outcome(await run.call("grep", { pattern: SECRET }))).not.toContain(`:${SECRET}`);
      expect(outcome(await run.call("grep", { pattern: SECRET, path: "grep-file-link" }))).not.toContain(`:${SECRET}`);
    }
    expect(outcome(await open().call("grep", { pattern: SECRET, path: secretFile }))).toContain(SECRET);
  });

  escapeAttempt(
    "paths",
    "grep (JavaScript engine) reads an outside file hard-linked into the workspace by the host",
    async () => {
      // bash cannot make such a link (above); one made on the host is refused by the file scope. The
      // ripgrep engine sees what bash sees, which the README states.
      const hard = path.join(ground.workspace, "host-hard.txt");
      await link(secretFile, hard);
      try {
        const run = attackRun(ground.workspace, "workspace", { grep: { engine: "javascript" } });
        expect(outcome(await run.call("grep", { pattern: SECRET, path: "host-hard.txt" }))).not.toContain(`:${SECRET}`);
        expect(outcome(await open().call("grep", { pattern: SECRET, path: "host-hard.txt" }))).toContain(SECRET);
      } finally {
        await rm(hard, { force: true });
      }
    },
  );

  escapeAttempt("paths", "read an outside file by absolute path and through a symlink", async () => {
    await symlink(secretFile, path.join(ground.workspace, "read-link"));
    expect(outcome(await confined().call("read", { path: secretFile }))).toBe("error:path_outside_workspace");
    expect(outcome(await confined().call("read", { path: "read-link" }))).not.toContain(SECRET);
    expect(outcome(await open().call("read", { path: secretFile }))).toContain(SECRET);
  });

  escapeAttempt("paths", "bash reads /etc/ssl/private and other files unreadable to users", async () => {
    await mkdir(path.join(ground.workspace, "probe"), { recursive: true });
    const result = await sh(confined(), "ls -A /etc/ssl/private 2>/dev/null | wc -l; cat /etc/gshadow 2>&1 | head -c 20");
    expect(result.stdout.split("\n")[0]).toBe("0");
    expect(result.stdout).not.toMatch(/root:/);
    if (process.getuid?.() === 0) expect((await sh(open(), "head -c 5 /etc/gshadow")).stdout).toBe("root:");
  });
});
