import { describe, expect, it } from "vitest";
import { cutToBytes, utf8Length } from "./cut-to-bytes.js";

describe("cutToBytes", () => {
  it("leaves text within the limit alone", () => {
    expect(cutToBytes("short", 5)).toBe("short");
  });

  it("keeps head and tail, says how much was cut, and stays near the limit", () => {
    const text = `${"a".repeat(5000)}${"b".repeat(5000)}`;
    const cut = cutToBytes(text, 1000);
    expect(cut.startsWith("a".repeat(750))).toBe(true);
    expect(cut.endsWith("b".repeat(250))).toBe(true);
    expect(cut).toContain("output cut: 10000 bytes in all, over the limit of 1000; 9000 bytes in the middle left out");
    expect(utf8Length(cut)).toBeLessThan(1200);
  });

  it("never splits a character", () => {
    const text = "é😀".repeat(1000);
    const cut = cutToBytes(text, 101);
    expect(cut).not.toContain("\uFFFD");
    expect(utf8Length("é😀")).toBe(6);
  });

  it("counts UTF-8 bytes like TextEncoder, lone surrogates included", () => {
    for (const text of ["", "abc", "ß", "€", "😀", "\uD800", "a\uDC00b"]) {
      expect(utf8Length(text)).toBe(new TextEncoder().encode(text).length);
    }
  });
});
