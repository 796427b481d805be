import { describe, expect, it } from "vitest";
import { parseSince } from "./since.js";

const now = new Date("2024-03-31T10:00:00Z");
const seconds = (iso: string) => Date.parse(iso) / 1000;

describe("parseSince", () => {
  it("reads ISO dates (a date alone is midnight UTC) and date-times with and without zones", () => {
    expect(parseSince("2024-01-15", now)).toBe(seconds("2024-01-15T00:00:00Z"));
    expect(parseSince("2024-01-15T08:30:00Z", now)).toBe(seconds("2024-01-15T08:30:00Z"));
    expect(parseSince("2024-01-15 08:30", now)).toBe(seconds("2024-01-15T08:30:00Z"));
    expect(parseSince("2024-01-15T08:30:00+0200", now)).toBe(seconds("2024-01-15T06:30:00Z"));
  });

  it("reads relative dates, with calendar months and years", () => {
    expect(parseSince("2 weeks ago", now)).toBe(seconds("2024-03-17T10:00:00Z"));
    expect(parseSince("3.days.ago", now)).toBe(seconds("2024-03-28T10:00:00Z"));
    expect(parseSince("1 month ago", now)).toBe(seconds("2024-03-02T10:00:00Z"));
    expect(parseSince("1 year", now)).toBe(seconds("2023-03-31T10:00:00Z"));
    expect(parseSince("yesterday", now)).toBe(seconds("2024-03-30T10:00:00Z"));
    expect(parseSince("today", now)).toBe(seconds("2024-03-31T00:00:00Z"));
  });

  it("refuses what it would have to guess", () => {
    for (const value of ["last friday", "soon", "2024-13-45", "-3 days", ""]) {
      expect(() => parseSince(value, now), value).toThrow(expect.objectContaining({ code: "invalid_since" }));
    }
  });
});
