import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  bytesOfPath,
  escapingDecoder,
  hasEscapedByte,
  lossyText,
  lstatSync,
  nulSeparatedArguments,
  pathFromBytes,
  readdirSync,
  readlinkSync,
} from "./byte-paths.js";

describe("byte-paths", () => {
  const root = mkdtempSync(path.join(tmpdir(), "atc-byte-paths-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("maps every byte string to a string and back, one to one", () => {
    const samples = [
      Buffer.from("plain/ascii"),
      Buffer.from("v\uFFFD"), // a name truly written with U+FFFD
      Buffer.from([0x76, 0xff]),
      Buffer.from([0xc3]), // a cut sequence
      Buffer.from([0xe0, 0x80, 0x80]), // overlong
      Buffer.from([0xed, 0xa0, 0x80]), // an encoded surrogate
      Buffer.from([0xf4, 0x90, 0x80, 0x80]), // past U+10FFFF
      Buffer.from("\u{1F080}é"), // a pair whose low half is in the escaped range
      Buffer.concat([Buffer.from("a"), Buffer.from([0x80, 0xfe]), Buffer.from("\u{1F600}")]),
    ];
    const seen = new Set<string>();
    for (const bytes of samples) {
      const text = pathFromBytes(bytes);
      expect(bytesOfPath(text).equals(bytes)).toBe(true);
      seen.add(text);
    }
    expect(seen.size).toBe(samples.length);
    expect(pathFromBytes(Buffer.from([0x76, 0xff]))).toBe("v\uDCFF");
    expect(pathFromBytes(Buffer.from("v\uFFFD"))).toBe("v\uFFFD");
  });

  it("lists and opens an entry whose name is not valid UTF-8 beside its U+FFFD twin", () => {
    const bad = Buffer.concat([Buffer.from(`${root}/v`), Buffer.from([0xff])]);
    mkdirSync(bad);
    writeFileSync(Buffer.concat([bad, Buffer.from("/HEAD")]), "ref: refs/heads/main\n");
    mkdirSync(path.join(root, "v\uFFFD"));
    const names = readdirSync(root).sort();
    expect(names).toEqual(["v\uDCFF", "v\uFFFD"]);
    const entries = readdirSync(root, { withFileTypes: true });
    expect(entries.map((entry) => entry.name).sort()).toEqual(["v\uDCFF", "v\uFFFD"]);
    expect(entries.every((entry) => entry.isDirectory())).toBe(true);
    expect(lstatSync(path.join(root, "v\uDCFF", "HEAD"), { throwIfNoEntry: false })?.isFile()).toBe(true);
    // The twin is another directory: no HEAD there.
    expect(lstatSync(path.join(root, "v\uFFFD", "HEAD"), { throwIfNoEntry: false })).toBeUndefined();
  });

  it("reads a link's target as bytes, and writes bwrap's NUL-separated arguments as bytes", () => {
    expect(readlinkSync("/proc/self/cwd")).toBe(process.cwd());
    expect([...nulSeparatedArguments(["--bind", "v\uDCFF", "a b"])]).toEqual([
      ...Buffer.from("--bind\0"),
      0x76,
      0xff,
      0,
      ...Buffer.from("a b\0"),
    ]);
  });

  it("decodes a stream cut inside a sequence as the whole, and a byte that is not UTF-8 as escaped", () => {
    const bytes = Buffer.concat([Buffer.from("a\u00e9\u{1F600}\uFFFD"), Buffer.from([0xff]), Buffer.from("z")]);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const decoder = escapingDecoder();
      const text = decoder.write(bytes.subarray(0, cut)) + decoder.write(bytes.subarray(cut)) + decoder.end();
      expect(text).toBe("a\u00e9\u{1F600}\uFFFD\uDCFFz");
    }
    const decoder = escapingDecoder();
    expect(decoder.write(Buffer.from([0x61, 0xe2, 0x82])) + decoder.end()).toBe("a\uDCE2\uDC82");
    expect(hasEscapedByte("a\uDCE2")).toBe(true);
    expect(hasEscapedByte("\u{1F080}")).toBe(false);
    expect(lossyText("a\uDCE2\u{1F080}")).toBe("a\uFFFD\u{1F080}");
  });
});
