import { describe, expect, it } from "vitest";
import { directoryGroups, directoryWindow, openFileLimit } from "./open-file-limit.js";

describe("directoryGroups", () => {
  const dirOf = (file: string) => file.slice(0, file.lastIndexOf("/"));

  it("keeps a change within the window as one group, the very array", () => {
    const files = ["a/1", "b/1", "a/2", "c/1"];
    const groups = directoryGroups(files, dirOf, 3);
    expect(groups).toEqual([files]);
    expect(groups[0]).toBe(files);
  });

  it("splits by directory, at most `window` directories a group, every file once, a directory in one group", () => {
    const files = Array.from({ length: 50 }, (_, i) => `d${i % 7}/f${i}`);
    const groups = directoryGroups(files, dirOf, 3);
    expect(groups.map((group) => new Set(group.map(dirOf)).size)).toEqual([3, 3, 1]);
    expect(groups.flat().sort()).toEqual([...files].sort());
    const owner = new Map<string, number>();
    for (const [index, group] of groups.entries()) {
      for (const file of group) {
        expect(owner.get(dirOf(file)) ?? index).toBe(index);
        owner.set(dirOf(file), index);
      }
    }
  });

  it("directoryWindow is a quarter of the open-file limit, at least 16", () => {
    expect(directoryWindow()).toBe(Math.max(16, Math.floor(openFileLimit() / 4)));
  });
});
