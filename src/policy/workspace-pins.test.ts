import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pinnedRealPaths, pinWorkspace, workspaceMoved } from "./workspace-pins.js";

describe("workspace pins", () => {
  let scratch: string;
  beforeEach(() => {
    scratch = realpathSync(mkdtempSync(path.join(tmpdir(), "atc-pins-")));
  });
  afterEach(() => rmSync(scratch, { recursive: true, force: true }));

  /** A link at `scratch/ws` to `target` (replacing one there). */
  const pointAt = (target: string) => {
    const link = path.join(scratch, "ws");
    try {
      unlinkSync(link);
    } catch {
      // First time: no link yet.
    }
    symlinkSync(target, link);
    return link;
  };
  const directory = (name: string) => {
    const made = path.join(scratch, name);
    mkdirSync(made, { recursive: true });
    return made;
  };

  it("refuses a real path the workspace did not have when it was pinned; a new pin adds the new one", () => {
    const first = directory("first");
    const second = directory("second");
    const link = pointAt(first);
    expect(workspaceMoved(link)).toBe(false);
    pinWorkspace(link);
    expect(pinnedRealPaths(link)).toEqual([first]);
    expect(workspaceMoved(`${link}/`)).toBe(false);
    pointAt(second);
    expect(workspaceMoved(link)).toBe(true);
    expect(workspaceMoved(link, second)).toBe(true);
    expect(workspaceMoved(link, first)).toBe(false);
    pinWorkspace(link);
    expect(workspaceMoved(link)).toBe(false);
    expect(pinnedRealPaths(link)).toEqual([first, second]);
  });

  it("records nothing for a relative, missing or absent workspace", () => {
    pinWorkspace(undefined);
    pinWorkspace("relative/ws");
    pinWorkspace(path.join(scratch, "missing"));
    expect(pinnedRealPaths("relative/ws")).toBeUndefined();
    expect(pinnedRealPaths(path.join(scratch, "missing"))).toBeUndefined();
    expect(workspaceMoved(path.join(scratch, "missing"))).toBe(false);
  });

  it("keeps the 64 most recent real paths of one workspace", () => {
    let link = "";
    for (let index = 0; index < 65; index++) {
      link = pointAt(directory(`target-${index}`));
      pinWorkspace(link);
    }
    const kept = pinnedRealPaths(link) ?? [];
    expect(kept).toHaveLength(64);
    expect(kept[0]).toBe(path.join(scratch, "target-1"));
    expect(workspaceMoved(link, path.join(scratch, "target-0"))).toBe(true);
    expect(workspaceMoved(link, path.join(scratch, "target-64"))).toBe(false);
  });
});
