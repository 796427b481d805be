import { describe, expect, it } from "vitest";
import { alternatesReadings, gitFileReadings, pointerFileReadings } from "./pointer-readings.js";

describe("pointer readings", () => {
  it("reads a .git file as git does (white space kept but trailing line breaks) and trimmed", () => {
    expect(gitFileReadings("gitdir: ../.git/modules/x\n")).toEqual(["../.git/modules/x"]);
    expect(gitFileReadings("gitdir: ../hostlink \n")).toEqual(["../hostlink ", "../hostlink"]);
    expect(gitFileReadings("gitdir: ../hostlink\t\r\n")).toEqual(["../hostlink\t", "../hostlink"]);
    expect(gitFileReadings("gitdir:  h\n")).toEqual([" h", "h"]);
    // Git's C string ends at a NUL; git refuses `gitdir:` without its space (the trimmed reading is still judged).
    expect(gitFileReadings("gitdir: ../x\0junk\n")).toEqual(["../x"]);
    expect(gitFileReadings("gitdir:../x")).toEqual(["../x"]);
    expect(gitFileReadings("ref: refs/heads/main\n")).toEqual([]);
  });

  it("reads commondir and gitdir files and alternates entries whole as well as trimmed", () => {
    expect(pointerFileReadings("../..\n")).toEqual(["../.."]);
    expect(pointerFileReadings("../../d \n")).toEqual(["../../d ", "../../d"]);
    expect(pointerFileReadings(" ../../d\n")).toEqual([" ../../d", "../../d"]);
    expect(alternatesReadings("../../dd \n# c\n../../ee\r\n")).toEqual(["../../dd ", "../../dd", "../../ee\r", "../../ee"]);
    expect(alternatesReadings("/a/objects\n\0/b/objects\n")).toEqual(["/a/objects"]);
  });
});
