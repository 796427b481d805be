import { describe, expect, it } from "vitest";
import { showControlCharacters } from "./visible-control-characters.js";

describe("showControlCharacters", () => {
  it("shows C0 controls and DEL as control pictures, C1 and bidi controls as code points", () => {
    expect(showControlCharacters("a\u001b[31mb\rc\u0000\u0007\u007f")).toBe("a␛[31mb␍c␀␇␡");
    expect(showControlCharacters("\u009b2J \u202eevil\u2066 \u200f")).toBe("[U+009B]2J [U+202E]evil[U+2066] [U+200F]");
  });

  it("keeps newlines, tabs, CRLF as a line end, and every other character as it is", () => {
    const plain = "naïve 中文 🙂\tcolumn\n\\x1b is text\n";
    expect(showControlCharacters(plain)).toBe(plain);
    expect(showControlCharacters("one\r\ntwo\r\n")).toBe("one\ntwo\n");
    expect(showControlCharacters("\r\r\n")).toBe("␍\n");
  });
});
