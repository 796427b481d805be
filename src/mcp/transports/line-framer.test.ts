import { describe, expect, it } from "vitest";
import { LineFramer } from "./line-framer.js";

describe("LineFramer", () => {
  it("splits lines across chunks, drops a trailing \\r, and keeps the unfinished rest", () => {
    const framer = new LineFramer(100);
    expect(framer.push(Buffer.from('{"a":'))).toEqual([]);
    expect(framer.push(Buffer.from('1}\r\n{"b":2}\n{"c"'))).toEqual(['{"a":1}', '{"b":2}']);
    expect(framer.push(Buffer.from(":3}\n"))).toEqual(['{"c":3}']);
  });

  it("keeps a multi-byte character split between chunks whole", () => {
    const framer = new LineFramer(100);
    const bytes = Buffer.from("é😀\n");
    expect([...framer.push(bytes.subarray(0, 3)), ...framer.push(bytes.subarray(3))]).toEqual(["é😀"]);
  });

  it("throws once an unfinished line passes the limit, then frames the next line again", () => {
    const framer = new LineFramer(10);
    expect(() => framer.push(Buffer.from("x".repeat(11)))).toThrow(/exceeded maximum size/);
    expect(framer.push(Buffer.from("ok\n"))).toEqual(["ok"]);
    expect(framer.push(Buffer.from("y".repeat(10)))).toEqual([]);
    expect(() => framer.push(Buffer.from("yy\n"))).toThrow(/exceeded maximum size/);
  });

  it("takes 20 MB of an endless line in 4 KiB chunks in linear time", () => {
    const framer = new LineFramer(10 * 1024 * 1024);
    const chunk = Buffer.alloc(4096, 120);
    const started = performance.now();
    let thrown = 0;
    for (let i = 0; i < 5000; i++) {
      try {
        framer.push(chunk);
      } catch {
        thrown++;
      }
    }
    expect(thrown).toBe(1);
    expect(performance.now() - started).toBeLessThan(500);
  });
});
