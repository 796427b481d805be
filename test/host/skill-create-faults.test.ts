// Fault round (stop 38): `skill_manage create` on a full disk answered no_space, but the folder it
// had made for the skill (`skills/<name>/`, empty) stayed. The skill was not listed, yet
// `skill_manage delete` of that name answered `{ deleted: "skill://<name>" }`: a result claiming a
// skill that never was. A create that fails now removes the folder it made (only when empty, only
// the one it made).
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Run } from "agent-tool-catalog";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { skillManageToolGroup } from "../../src/host/index.js";
import { failure, hostRun, record } from "./support/host-test-kit.js";

const isRoot = process.getuid?.() === 0;

describe.skipIf(!isRoot)("a skill create that fails leaves no folder (needs root to mount a tmpfs)", () => {
  let mountPoint: string;
  let skills: string;
  let run: Run;
  beforeEach(async () => {
    mountPoint = mkdtempSync(path.join(tmpdir(), "atc-skill-create-"));
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", mountPoint]);
    skills = path.join(mountPoint, "skills");
    run = hostRun([skillManageToolGroup({ skillsDir: skills })]).run;
    record(await run.call("skill_manage", { action: "create", name: "s1", description: "First skill", body: "Do it." }));
  });
  afterEach(async () => {
    execFileSync("umount", [mountPoint]);
    await rm(mountPoint, { recursive: true, force: true });
  });

  async function fillDisk(): Promise<void> {
    await mkdir(path.join(mountPoint, "filler"));
    let count = 0;
    try {
      for (;;) await writeFile(path.join(mountPoint, "filler", String(count++)), Buffer.alloc(4096, 1));
    } catch {}
  }

  it("full disk: no_space, no skills/s2 folder, delete finds no s2; control: space freed, the same create and delete succeed", async () => {
    await fillDisk();
    const create = () =>
      run.call("skill_manage", { action: "create", name: "s2", description: "Second skill", body: "x".repeat(5000) });
    expect(failure(await create()).code).toBe("no_space");
    expect((await readdir(skills)).sort()).toEqual(["s1"]);
    expect(await readdir(path.join(skills, "s1"))).toEqual(["SKILL.md"]);
    expect(failure(await run.call("skill_manage", { action: "delete", name: "s2" })).code).toBe("unknown_skill");
    // Control: with space, the same calls create and delete s2.
    await rm(path.join(mountPoint, "filler"), { recursive: true });
    expect(record(await create())).toMatchObject({ created: "skill://s2" });
    expect(await readdir(path.join(skills, "s2"))).toEqual(["SKILL.md"]);
    expect(record(await run.call("skill_manage", { action: "delete", name: "s2" }))).toMatchObject({ deleted: "skill://s2" });
  });

  it("controls: a folder that was there (with a file of its own) is kept on no_space; an existing skill stays on skill_exists", async () => {
    await mkdir(path.join(skills, "s3"));
    await writeFile(path.join(skills, "s3", "notes.md"), "kept\n");
    await fillDisk();
    const create = run.call("skill_manage", { action: "create", name: "s3", description: "Third", body: "z".repeat(5000) });
    expect(failure(await create).code).toBe("no_space");
    expect(await readdir(path.join(skills, "s3"))).toEqual(["notes.md"]);
    await rm(path.join(mountPoint, "filler"), { recursive: true });
    const error = failure(await run.call("skill_manage", { action: "create", name: "s1", description: "Again", body: "y" }));
    expect(error.code).toBe("skill_exists");
    expect(await readdir(path.join(skills, "s1"))).toEqual(["SKILL.md"]);
    const listed = record(await run.call("skill_manage", { action: "list" }));
    expect(listed.skills).toMatchObject([{ name: "s1", description: "First skill" }]);
  });
});
