import { describe, expect, it } from "vitest";
import { pathFromBytes } from "./byte-paths.js";
import { type ExpectedMounts, mountTableProblem, parseMountinfo } from "./mount-verification.js";

const HOST = [
  "21 26 0:20 / /proc rw,relatime - proc proc rw",
  "23 26 0:6 / /dev rw,relatime - devtmpfs devtmpfs rw",
  "26 1 254:0 / / rw,relatime - ext4 /dev/vda rw",
  "30 26 0:30 / /mnt/data rw,relatime - ext4 /dev/vdb rw",
].join("\n");

const EXPECTED: ExpectedMounts = {
  workspace: "/tmp/ws",
  readOnlyIdentity: ["/usr", "/etc", "/proc/sys"],
  nullBound: ["/etc/shadow"],
  protectedBinds: ["/tmp/ws/sub/.git", "/tmp/ws/sub/.git/hooks"],
  protectedTmpfs: ["/tmp/ws/sub/.git/info"],
};

/** A sandbox table as bwrap makes it for {@link EXPECTED}, plus `extra` lines. */
function sandbox(...extra: string[]): string {
  return [
    "100 99 0:50 /newroot / rw - tmpfs tmpfs rw",
    "101 100 254:0 /usr /usr ro,relatime - ext4 /dev/vda rw",
    "102 100 254:0 /etc /etc ro,relatime - ext4 /dev/vda rw",
    "103 102 0:6 /null /etc/shadow ro - devtmpfs devtmpfs rw",
    "104 100 0:51 / /proc rw - proc proc rw",
    "105 104 0:51 /irq /proc/irq ro - proc proc rw",
    "106 104 0:20 /sys /proc/sys ro - proc proc rw",
    "107 100 0:52 / /dev rw - tmpfs tmpfs rw",
    "108 107 0:6 /null /dev/null rw - devtmpfs devtmpfs rw",
    "109 100 0:53 / /tmp rw - tmpfs tmpfs rw",
    "110 109 254:0 /tmp/ws /tmp/ws rw - ext4 /dev/vda rw",
    "111 110 254:0 /tmp/ws/sub/.git /tmp/ws/sub/.git rw - ext4 /dev/vda rw",
    "112 111 254:0 /tmp/ws/sub/.git/hooks /tmp/ws/sub/.git/hooks ro - ext4 /dev/vda rw",
    "113 111 0:54 / /tmp/ws/sub/.git/info ro - tmpfs tmpfs rw",
    ...extra,
  ].join("\n");
}

describe("mountTableProblem", () => {
  it("accepts the table bwrap makes from the arguments", () => {
    expect(mountTableProblem(sandbox(), HOST, EXPECTED)).toBeUndefined();
  });

  it("refuses a host directory bound over the sandbox's own /tmp (a link's target, climbing)", () => {
    expect(mountTableProblem(sandbox("120 109 254:0 /tmp /tmp ro - ext4 /dev/vda rw"), HOST, EXPECTED)).toBe(
      "/tmp is a host path the sandbox does not bind",
    );
  });

  it("refuses a host directory bound where a protected path is", () => {
    expect(
      mountTableProblem(sandbox("120 112 254:0 /root /tmp/ws/sub/.git/hooks ro - ext4 /dev/vda rw"), HOST, EXPECTED),
    ).toMatch(/^\/tmp\/ws\/sub\/\.git\/hooks holds another host path than its own/);
  });

  it("refuses a read-only host directory bound onto itself read-write", () => {
    expect(mountTableProblem(sandbox("120 101 254:0 /usr/share /usr/share rw - ext4 /dev/vda rw"), HOST, EXPECTED)).toBe(
      "/usr/share is writable",
    );
  });

  it("refuses a host tmpfs where the sandbox makes its own", () => {
    const host = `${HOST}\n40 26 0:60 / /tmp rw - tmpfs tmpfs rw`;
    expect(mountTableProblem(sandbox().replace("0:53 / /tmp", "0:60 / /tmp"), host, EXPECTED)).toBe(
      "/tmp is a host path the sandbox does not bind",
    );
  });

  it("refuses a protected path that is not mounted (its mount went elsewhere)", () => {
    const table = sandbox().replace(/^112 .*$/m, "112 111 254:0 /tmp/ws/other /tmp/ws/other ro - ext4 /dev/vda rw");
    expect(mountTableProblem(table, HOST, EXPECTED)).toBe("/tmp/ws/sub/.git/hooks is not protected");
    const tmpfs = sandbox().replace(/^113 .*$/m, "");
    expect(mountTableProblem(tmpfs, HOST, EXPECTED)).toBe("/tmp/ws/sub/.git/info is not protected");
  });

  it("requires a readOnlyPaths entry inside the workspace to be its path's topmost mount, read-only", () => {
    const expected = { ...EXPECTED, readOnlyInWorkspace: ["/tmp/ws/vendor"] };
    const vendor = (id: number, parent: number, options: string) =>
      `${id} ${parent} 254:0 /tmp/ws/vendor /tmp/ws/vendor ${options} - ext4 /dev/vda rw`;
    expect(mountTableProblem(sandbox(vendor(120, 110, "ro")), HOST, expected)).toBeUndefined();
    expect(mountTableProblem(sandbox(), HOST, expected)).toBe("/tmp/ws/vendor is not mounted");
    expect(mountTableProblem(sandbox(vendor(120, 110, "rw")), HOST, expected)).toBe("/tmp/ws/vendor is writable");
    // Read-only first, then covered by a writable bind of the same path: the writable one is what the command sees.
    expect(mountTableProblem(sandbox(vendor(120, 110, "ro"), vendor(121, 120, "rw")), HOST, expected)).toBe(
      "/tmp/ws/vendor is writable",
    );
  });

  it("refuses something else than /dev/null on a masked file", () => {
    const table = sandbox().replace("0:6 /null /etc/shadow", "0:6 /zero /etc/shadow");
    expect(mountTableProblem(table, HOST, EXPECTED)).toBe("/etc/shadow is not the host's /dev/null");
  });

  it("follows the host's own mounts below a bound directory, and names with escaped spaces", () => {
    const expected = { ...EXPECTED, workspace: "/mnt/data/my ws", protectedBinds: [], protectedTmpfs: [] };
    const table = [
      "100 99 0:50 /newroot / rw - tmpfs tmpfs rw",
      "110 100 0:30 /my\\040ws /mnt/data/my\\040ws rw - ext4 /dev/vdb rw",
    ].join("\n");
    expect(parseMountinfo(table)[1]?.mountPoint).toBe("/mnt/data/my ws");
    expect(mountTableProblem(table, HOST, expected)).toBeUndefined();
    expect(mountTableProblem(table.replace("0:30 /my", "254:0 /my"), HOST, expected)).toMatch(/holds another host path/);
  });

  it("reads paths as bytes: octal escapes and raw bytes that are not UTF-8 match the escaped strings bwrap was given", () => {
    // The kernel writes \ as \134 and a newline as \012, and other bytes raw (here 0xff, read as latin1).
    const table = "110 100 0:30 /a\\134b\\012c/v\xff/.git /mnt/data/a\\134b\\012c/v\xff/.git rw - ext4 /dev/vdb rw";
    const [entry] = parseMountinfo(table);
    expect(entry?.mountPoint).toBe(pathFromBytes(Buffer.from("/mnt/data/a\\b\nc/v\xff/.git", "latin1")));
    expect(entry?.mountPoint).toBe("/mnt/data/a\\b\nc/v\udcff/.git");
    // A literal "\040" in a name (\134040) is not a space.
    expect(parseMountinfo("1 1 0:1 / /x\\134040y rw - tmpfs tmpfs rw")[0]?.mountPoint).toBe("/x\\040y");
  });

  describe("read-only protection at the top of its path", () => {
    const expected: ExpectedMounts = {
      ...EXPECTED,
      protectedReadOnly: ["/tmp/ws/sub/.git/hooks"],
      maskedDirectories: ["/etc/ssl/private"],
    };
    const masked = "114 102 0:55 / /etc/ssl/private ro - tmpfs tmpfs rw";

    it("accepts the read-only bind and the masked directory's read-only tmpfs on top", () => {
      expect(mountTableProblem(sandbox(masked), HOST, expected)).toBeUndefined();
    });

    it("refuses a protected read-only bind covered by a writable mount of its own content", () => {
      const covering = "120 112 254:0 /tmp/ws/sub/.git/hooks /tmp/ws/sub/.git/hooks rw - ext4 /dev/vda rw";
      expect(mountTableProblem(sandbox(masked, covering), HOST, expected)).toBe("/tmp/ws/sub/.git/hooks is not read-only");
      // The same cover on a path only pinned read-write is what the arguments meant.
      expect(mountTableProblem(sandbox(masked, covering), HOST, EXPECTED)).toBeUndefined();
    });

    it("refuses a masked directory whose tmpfs is missing, writable or covered", () => {
      expect(mountTableProblem(sandbox(), HOST, expected)).toBe("/etc/ssl/private is not covered by an empty read-only tmpfs");
      expect(mountTableProblem(sandbox(masked.replace(" ro - ", " rw - ")), HOST, expected)).toMatch(/not covered/);
      const covered = "121 114 254:0 /etc/ssl/private /etc/ssl/private ro - ext4 /dev/vda rw";
      expect(mountTableProblem(sandbox(masked, covered), HOST, expected)).toBe(
        "/etc/ssl/private is not covered by an empty read-only tmpfs",
      );
    });

    it("refuses a protected tmpfs covered by another mount", () => {
      const covered = "121 113 254:0 /tmp/ws/sub/.git/info /tmp/ws/sub/.git/info ro - ext4 /dev/vda rw";
      expect(mountTableProblem(sandbox(masked, covered), HOST, expected)).toBe(
        "/tmp/ws/sub/.git/info is not covered by an empty read-only tmpfs",
      );
    });
  });
});
