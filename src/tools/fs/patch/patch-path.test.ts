import { describe, expect, it } from "vitest";
import { normalizePatchPath } from "./patch-path.js";

describe("normalizePatchPath", () => {
  it.each([
    ["src/a.ts", "src/a.ts"],
    ["  ./src//a.ts ", "src/a.ts"],
    ["src\\win\\a.ts", "src/win/a.ts"],
    ["a/b/../c.ts", "a/c.ts"],
    ["a/./b/./c", "a/b/c"],
    ["/etc/passwd", "/etc/passwd"],
    ["/work/ws/../ws/a.ts", "/work/ws/a.ts"],
    ["../x", "../x"],
    ["a/../../x", "../x"],
  ])("normalises %j to %j", (raw, expected) => {
    expect(normalizePatchPath(raw)).toEqual({ ok: true, value: expected });
  });

  it.each([
    ["", "empty"],
    ["C:\\Windows\\x", "drive-letter"],
    ["~/secrets", "home-directory"],
    [".", "names a directory"],
    ["/", "names a directory"],
    ["src/", "names a directory"],
    ["src/.", "names a directory"],
    ["a/b/..", "names a directory"],
    ["..", "names a directory"],
    ["a\0b", "NUL"],
  ])("refuses %j (%s)", (raw, why) => {
    const result = normalizePatchPath(raw);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe("invalid_path");
      expect(result.error.message).toContain(why);
      expect(result.error.hint).toContain("e.g. src/index.ts");
    }
  });
});
