// Fault round (stop 38): a profile file left broken (a TOML that does not parse: a hand edit, a
// disk that filled under another tool; or a FIFO in its place) was answered invalid_profile with
// the hint "Fix it with update_profile or delete_profile", and both of those answered the same
// invalid_profile: the model could neither fix nor remove it. delete_profile now deletes a broken
// file, the hint says delete then create, and a directory in a profile's place is refused with a
// hint for the host (never removed with its contents).
import { execFileSync } from "node:child_process";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type AgentProfile, profileToolGroup } from "../../src/host/index.js";
import { failure, hostRun, record, temporaryDirectory, text } from "./support/host-test-kit.js";

let root: { path: string; remove(): Promise<void> };
let profiles: string;
beforeEach(async () => {
  root = await temporaryDirectory("atc-broken-profile-");
  profiles = path.join(root.path, "profiles");
  await mkdir(profiles);
});
afterEach(() => root.remove());

const builtin = { name: "reviewer", description: "Built in" } as AgentProfile;
const runWith = () => hostRun([profileToolGroup({ profiles: [builtin], profilesDir: profiles })]).run;

describe("a broken profile file can be deleted", () => {
  it("a TOML that does not parse: the hint says delete then create; delete_profile deletes it; create_profile makes it again", async () => {
    const run = runWith();
    await writeFile(path.join(profiles, "p2.toml"), "garbage [[[");
    const error = failure(await run.call("update_profile", { name: "p2", description: "e" }));
    expect(error.code).toBe("invalid_profile");
    expect(error.hint).toBe("Delete it with delete_profile, then create it again with create_profile.");
    expect(text(await run.call("delete_profile", { name: "p2" }))).toBe('Deleted profile "p2".');
    expect(await readdir(profiles)).toEqual([]);
    record(await run.call("create_profile", { name: "p2", description: "Second" }));
    expect(await readFile(path.join(profiles, "p2.toml"), "utf8")).toContain("Second");
  });

  it.skipIf(process.platform === "win32")("a FIFO in a profile's place is deleted without waiting on it", async () => {
    const run = runWith();
    execFileSync("mkfifo", [path.join(profiles, "p3.toml")]);
    expect(failure(await run.call("get_profile", { name: "p3" })).code).toBe("invalid_profile");
    expect(text(await run.call("delete_profile", { name: "p3" }))).toBe('Deleted profile "p3".');
    expect(await readdir(profiles)).toEqual([]);
  });

  it("a directory in a profile's place is refused for the host, kept with its contents", async () => {
    const run = runWith();
    await mkdir(path.join(profiles, "p4.toml"));
    await writeFile(path.join(profiles, "p4.toml", "keep.txt"), "keep\n");
    const error = failure(await run.call("delete_profile", { name: "p4" }));
    expect(error.code).toBe("invalid_profile");
    expect(error.message).toBe('Profile "p4" is a directory, not a file; it is left alone.');
    expect(error.hint).toContain("The host must remove or rename it");
    expect(await readFile(path.join(profiles, "p4.toml", "keep.txt"), "utf8")).toBe("keep\n");
  });

  it("controls: a valid profile deletes, a built-in one is refused, an unknown one is unknown_profile", async () => {
    const run = runWith();
    record(await run.call("create_profile", { name: "p1", description: "First" }));
    expect(text(await run.call("delete_profile", { name: "p1" }))).toBe('Deleted profile "p1".');
    expect(failure(await run.call("delete_profile", { name: "reviewer" })).code).toBe("builtin_profile");
    expect(failure(await run.call("delete_profile", { name: "nothing" })).code).toBe("unknown_profile");
    expect(await readdir(profiles)).toEqual([]);
  });
});
