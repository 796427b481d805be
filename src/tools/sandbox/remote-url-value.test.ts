import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repositoryUrlKept, repositoryUrlRelinked } from "./remote-url-value.js";

describe("repository URLs in a new repository's config", () => {
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), "atc-remote-url-")));
  const root = path.join(base, "ws");
  const outside = path.join(base, "outside");
  const gitDirectory = path.join(root, "sub", ".git");
  mkdirSync(gitDirectory, { recursive: true });
  mkdirSync(path.join(root, "src"));
  mkdirSync(outside);
  symlinkSync(outside, path.join(root, "out"));
  symlinkSync(outside, path.join(root, "plain.git"));
  mkdirSync(path.join(outside, "inner"));
  symlinkSync(path.join(outside, "inner"), path.join(root, "deep"));
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it("keeps network URLs and paths inside the workspace", () => {
    for (const value of [
      "https://example.com/o/r.git",
      " ssh://git@example.com:22/o/r",
      "git://example.com/r",
      "git@example.com:o/r.git",
      "example.com:r",
      "[::1]:r",
      `${root}/src`,
      `file://${root}/src`,
      "src",
      ".",
      "origin",
    ]) {
      expect(repositoryUrlKept(value, gitDirectory, root), value).toBe(true);
    }
  });

  it("refuses host paths, links out, git's suffixes, helpers, options and what it cannot read", () => {
    for (const value of [
      outside,
      `file://${outside}`,
      "../outside",
      "../../../outside",
      `${root}/out`,
      `${root}/out/deeper`,
      `${root}/plain`,
      // `..` after a link, from the link's target (round 43): `src` as written, the host's `outside` to git.
      `${root}/deep/..`,
      "../../deep/../src",
      "ext::sh -c touch% /tmp/x",
      "fd::3",
      "foo::bar",
      "hg::https://example.com/r",
      "ftp://example.com/r",
      "foo://example.com/r",
      `file://localhost${root}/src`,
      "ssh://-oProxyCommand=x/r",
      "-oProxyCommand=x:r",
      "~/r",
      `"${root}/src"`,
      `${root}/src # c`,
      "",
      undefined,
    ]) {
      expect(repositoryUrlKept(value, gitDirectory, root), String(value)).toBe(false);
    }
  });

  it("refuses a value git reads otherwise than trimmed (round 45 follow-up)", () => {
    symlinkSync(outside, path.join(root, "u\v"));
    // Git reads `u<VT>` and `<root>/u<VT>` (links out); trimmed, `u` (missing, inside).
    for (const value of ["u\v", `${root}/u\v`, " src\u00a0"]) {
      expect(repositoryUrlKept(value, gitDirectory, root), JSON.stringify(value)).toBe(false);
    }
    // Control: git's own spaces at the ends are dropped by both readings.
    for (const value of ["src\t ", ` ${root}/src\r`]) {
      expect(repositoryUrlKept(value, gitDirectory, root), JSON.stringify(value)).toBe(true);
    }
  });

  it("calls relinked only an inside local path now leading out; network URLs and the host's outside paths are not judged", () => {
    for (const value of [`${root}/out`, `file://${root}/out`, "out", `${root}/plain`, `${root}/deep/..`]) {
      expect(repositoryUrlRelinked(value, gitDirectory, root), value).toBe(true);
    }
    for (const value of [
      `${root}/src`,
      "src",
      outside,
      `file://${outside}`,
      "https://example.com/r.git",
      "git@example.com:o/r",
      "ext::sh",
      '"out"',
    ]) {
      expect(repositoryUrlRelinked(value, gitDirectory, root), value).toBe(false);
    }
  });
});
