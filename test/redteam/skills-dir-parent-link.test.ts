/**
 * Review of red team 13's fixes: only the last component of a skill's path was checked. A
 * sandboxed command can replace `.myapp/skills` itself (or `.myapp`) with a link to a host folder:
 * `skill_manage delete projects` then removed `outside/projects` recursively, and `create` wrote
 * `outside/planted/SKILL.md`. A folder swapped for a link between the check and the write was
 * also followed. Every operation now goes through directory handles opened without following
 * links from an anchor resolved once.
 */
import { spawn } from "node:child_process";
import { mkdir, readdir, readFile, rename, rm, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import type { ToolCallResult } from "agent-tool-catalog";
import {
  DirectoryPromptExtensionStore,
  ProfileDirectory,
  profileToolGroup,
  skillManageToolGroup,
  workspaceSkillsDirectory,
} from "agent-tool-catalog/host";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { failure, hostRun, record, temporaryDirectory, text } from "../host/support/host-test-kit.js";
import { stopProcess } from "../support/stop-process.js";

let root: { path: string; remove(): Promise<void> };
let workspace: string;
let outside: string;

beforeEach(async () => {
  root = await temporaryDirectory("skills-parent-link-");
  workspace = path.join(root.path, "workspace");
  outside = path.join(root.path, "outside");
  await mkdir(path.join(outside, "projects", "important"), { recursive: true });
  await writeFile(path.join(outside, "projects", "important", "data.txt"), "precious");
  await mkdir(workspace, { recursive: true });
});
afterEach(() => root.remove());

function sandboxedRun(skillsDir: string) {
  return hostRun([skillManageToolGroup({ skillsDir })], {
    permissions: { sandbox: "workspace", workspace, approval: "none" },
  }).run;
}

async function hostFolderIntact(): Promise<void> {
  expect((await readdir(outside)).sort()).toEqual(["projects"]);
  expect(await readFile(path.join(outside, "projects", "important", "data.txt"), "utf8")).toBe("precious");
}

function succeeded(result: ToolCallResult): void {
  expect(result.ok ? "ok" : JSON.stringify(result.error)).toBe("ok");
}

const skillFile = (body: string) => ({ action: "create", name: "planted", description: "d", body });

describe("a linked skills directory or a folder above it", () => {
  for (const linked of ["skills", ".myapp"] as const) {
    it(`${linked} linked to a host folder: delete, create, update and read are symlink_refused; the host folder is intact`, async () => {
      const skillsDir = workspaceSkillsDirectory(workspace, "myapp");
      if (linked === "skills") {
        await mkdir(path.dirname(skillsDir), { recursive: true });
        await symlink(outside, skillsDir);
      } else {
        await mkdir(path.join(outside, "skills", "projects"), { recursive: true });
        await writeFile(path.join(outside, "skills", "projects", "SKILL.md"), "---\nname: projects\ndescription: d\n---\nb\n");
        await symlink(outside, path.dirname(skillsDir));
      }
      const run = sandboxedRun(skillsDir);
      const target = "projects";
      expect(failure(await run.call("skill_manage", { action: "delete", name: target })).code).toBe("symlink_refused");
      expect(failure(await run.call("skill_manage", skillFile("b"))).code).toBe("symlink_refused");
      expect(failure(await run.call("skill_manage", { action: "update", name: target, body: "b2" })).code).toBe(
        "symlink_refused",
      );
      expect(failure(await run.call("skill_manage", { action: "read", name: target })).code).toBe("symlink_refused");
      if (linked === "skills") await hostFolderIntact();
      else {
        expect(await readdir(path.join(outside, "skills"))).toEqual(["projects"]);
        expect(await readFile(path.join(outside, "skills", "projects", "SKILL.md"), "utf8")).toContain("name: projects");
      }
    });
  }

  it("the skills directory swapped for a link after first use is refused too", async () => {
    const skillsDir = workspaceSkillsDirectory(workspace, "myapp");
    const run = sandboxedRun(skillsDir);
    succeeded(await run.call("skill_manage", skillFile("b")));
    await rename(skillsDir, path.join(workspace, "moved"));
    await symlink(outside, skillsDir);
    expect(failure(await run.call("skill_manage", { action: "delete", name: "projects" })).code).toBe("symlink_refused");
    expect(failure(await run.call("skill_manage", { ...skillFile("b"), name: "other" })).code).toBe("symlink_refused");
    await hostFolderIntact();
  });

  it("control: a host-configured skills directory that is itself a symlink works (create, update, read, delete)", async () => {
    const real = path.join(root.path, "dotfiles", "skills");
    await mkdir(real, { recursive: true });
    const configured = path.join(root.path, "config-skills");
    await symlink(real, configured);
    const run = sandboxedRun(configured);
    succeeded(await run.call("skill_manage", skillFile("b")));
    succeeded(await run.call("skill_manage", { action: "update", name: "planted", body: "b2" }));
    expect(text(await run.call("skill_manage", { action: "read", name: "planted" }))).toContain("b2");
    expect(await readFile(path.join(real, "planted", "SKILL.md"), "utf8")).toContain("b2");
    await mkdir(path.join(real, "planted", "nested", "deeper"), { recursive: true });
    await writeFile(path.join(real, "planted", "nested", "deeper", "x.txt"), "x");
    await symlink(outside, path.join(real, "planted", "nested", "out"));
    succeeded(await run.call("skill_manage", { action: "delete", name: "planted" }));
    expect(await readdir(real)).toEqual([]);
    // The link inside the deleted skill was removed, not followed.
    await hostFolderIntact();
  });

  it("control: ordinary create, update and delete in the workspace skills directory work", async () => {
    const run = sandboxedRun(workspaceSkillsDirectory(workspace, "myapp"));
    succeeded(await run.call("skill_manage", skillFile("b")));
    succeeded(await run.call("skill_manage", { action: "update", name: "planted", body: "b2" }));
    succeeded(await run.call("skill_manage", { action: "delete", name: "planted" }));
    expect(await readdir(path.join(workspace, ".myapp", "skills"))).toEqual([]);
  });
});

describe("a skills directory in the workspace not made by workspaceSkillsDirectory", () => {
  it("already a link to a host folder at first use: skill_manage neither reads nor writes through it", async () => {
    const skillsDir = path.join(workspace, ".other", "skills");
    await mkdir(path.dirname(skillsDir), { recursive: true });
    await symlink(outside, skillsDir);
    const run = sandboxedRun(skillsDir);
    expect(failure(await run.call("skill_manage", skillFile("b"))).code).toBe("symlink_refused");
    expect(failure(await run.call("skill_manage", { action: "delete", name: "projects" })).code).toBe("symlink_refused");
    await hostFolderIntact();
  });

  it("control: the same path as a plain folder works", async () => {
    const skillsDir = path.join(workspace, ".other", "skills");
    const run = sandboxedRun(skillsDir);
    succeeded(await run.call("skill_manage", skillFile("b")));
    expect(await readdir(skillsDir)).toEqual(["planted"]);
    succeeded(await run.call("skill_manage", { action: "delete", name: "planted" }));
  });
});

describe("a linked profiles directory", () => {
  it("create and delete of <name>.toml through a profiles directory linked after first use are symlink_refused", async () => {
    const profilesDir = path.join(workspace, ".myapp", "profiles");
    const profiles = new ProfileDirectory(profilesDir);
    await profiles.create({ name: "first", description: "d", tools: [] } as never);
    expect((await profiles.list()).profiles.map((profile) => profile.name)).toEqual(["first"]);
    await writeFile(path.join(outside, "victim.toml"), 'description = "host"\n');
    await rename(profilesDir, path.join(workspace, "moved"));
    await symlink(outside, profilesDir);
    await expect(profiles.delete("victim")).rejects.toMatchObject({ code: "symlink_refused" });
    await expect(profiles.create({ name: "planted", description: "d", tools: [] } as never)).rejects.toMatchObject({
      code: "symlink_refused",
    });
    expect((await readdir(outside)).sort()).toEqual(["projects", "victim.toml"]);
  });

  // No `anchor` and no workspace convention function: the calling run's workspace is the anchor,
  // since that is where a sandboxed command plants links (old code followed the link at first use).
  for (const linked of ["profiles", ".myapp"] as const) {
    it(`${linked} already a link to a host folder at first use: the profile tools neither read nor write through it`, async () => {
      const profilesDir = path.join(workspace, ".myapp", "profiles");
      await writeFile(path.join(outside, "victim.toml"), 'description = "host"\n');
      if (linked === "profiles") {
        await mkdir(path.dirname(profilesDir), { recursive: true });
        await symlink(outside, profilesDir);
      } else {
        await mkdir(path.join(outside, "profiles"), { recursive: true });
        await writeFile(path.join(outside, "profiles", "victim.toml"), 'description = "host"\n');
        await symlink(outside, path.dirname(profilesDir));
      }
      const { run } = hostRun([profileToolGroup({ profilesDir })], {
        permissions: { sandbox: "workspace", workspace, approval: "none" },
      });
      const listed = record(await run.call("list_profiles", {}));
      expect(JSON.stringify(listed.broken)).toContain("symbolic link");
      expect(failure(await run.call("get_profile", { name: "victim" })).code).toBe("symlink_refused");
      expect(failure(await run.call("create_profile", { name: "planted", description: "d" })).code).toBe("symlink_refused");
      expect(failure(await run.call("delete_profile", { name: "victim" })).code).toBe("symlink_refused");
      const hostFolder = linked === "profiles" ? outside : path.join(outside, "profiles");
      expect((await readdir(hostFolder)).filter((name) => name.endsWith(".toml"))).toEqual(["victim.toml"]);
    });
  }

  it("control: the profile tools on a plain profiles directory in the workspace, and on a linked one outside it, work", async () => {
    const inside = path.join(workspace, ".myapp", "profiles");
    const real = path.join(root.path, "dotfiles", "profiles");
    await mkdir(real, { recursive: true });
    const configured = path.join(root.path, "config-profiles");
    await symlink(real, configured);
    for (const [profilesDir, folder] of [
      [inside, inside],
      [configured, real],
    ] as const) {
      const { run } = hostRun([profileToolGroup({ profilesDir })], {
        permissions: { sandbox: "workspace", workspace, approval: "none" },
      });
      succeeded(await run.call("create_profile", { name: "first", description: "d" }));
      expect(await readdir(folder)).toEqual(["first.toml"]);
      expect(record(await run.call("get_profile", { name: "first" })).name).toBe("first");
      succeeded(await run.call("delete_profile", { name: "first" }));
      expect(await readdir(folder)).toEqual([]);
    }
  });

  it("control: a host-configured profiles directory that is itself a symlink works", async () => {
    const real = path.join(root.path, "dotfiles", "profiles");
    await mkdir(real, { recursive: true });
    const configured = path.join(root.path, "config-profiles");
    await symlink(real, configured);
    const profiles = new ProfileDirectory(configured);
    await profiles.create({ name: "first", description: "d", tools: [] } as never);
    expect(await readdir(real)).toEqual(["first.toml"]);
    expect(await profiles.delete("first")).toBe(true);
    expect(await readdir(real)).toEqual([]);
  });
});

describe("a skill folder swapped between a directory and a link by a background process", () => {
  it("nothing ever appears outside across many creates", async () => {
    const skillsDir = workspaceSkillsDirectory(workspace, "myapp");
    await mkdir(skillsDir, { recursive: true });
    const flip = path.join(skillsDir, "flip");
    const script = `
      const fs = require("fs");
      const p = ${JSON.stringify(flip)}, d = p + ".d", l = p + ".l", out = ${JSON.stringify(outside)};
      // Ends by itself (the test's own bound) should the test process die without stopping it.
      const end = Date.now() + 120000;
      while (Date.now() < end) {
        try { fs.mkdirSync(d) } catch {} try { fs.renameSync(d, p) } catch {}
        try { fs.rmSync(p, { recursive: true, force: true }) } catch {}
        try { fs.symlinkSync(out, l) } catch {} try { fs.renameSync(l, p) } catch {} try { fs.unlinkSync(p) } catch {}
      }`;
    const child = spawn(process.execPath, ["-e", script], { stdio: "ignore" });
    try {
      const run = sandboxedRun(skillsDir);
      let tries = 0;
      const codes = new Set<string>();
      // A count, not a time: at load 35 (six busy loops beside) ten seconds gave 42 creates.
      while (tries < 100) {
        tries++;
        const result = await run.call("skill_manage", { action: "create", name: "flip", description: "d", body: "ESCAPED BODY" });
        if (!result.ok) codes.add(result.error.code);
        expect((await readdir(outside)).filter((entry) => entry !== "projects")).toEqual([]);
      }
      // Every refusal is a structured one (a swapped folder), never an I/O error of a followed link.
      for (const code of codes) expect(["invalid_skill", "skill_exists", "symlink_refused"]).toContain(code);
      // No temporaries are left in the workspace's skills directory either.
      await rm(flip, { recursive: true, force: true }).catch(() => undefined);
    } finally {
      // Waited for: its last rename or symlink lands after the signal, else in the directory
      // afterEach removes (or beside hostFolderIntact's look).
      await stopProcess(child);
    }
    await hostFolderIntact();
  }, 120_000);
});

describe("a linked prompt extensions folder (GNU stow)", () => {
  it("is reported as a broken entry, not listed as silently empty; a plain folder reports nothing", async () => {
    const prompts = path.join(root.path, "prompts");
    await mkdir(path.join(prompts, "behaviors"), { recursive: true });
    await mkdir(path.join(outside, "talents"), { recursive: true });
    await writeFile(path.join(outside, "talents", "stowed.md"), "---\ndescription: stowed\n---\n\nText.\n");
    await symlink(path.join(outside, "talents"), path.join(prompts, "talents"));
    const store = new DirectoryPromptExtensionStore(prompts);
    await store.create({ kind: "behavior", name: "tests", description: "Run the tests.", content: "Run them." });
    expect((await store.list()).map((extension) => extension.name)).toEqual(["tests"]);
    const broken = await store.broken();
    expect(broken.map(({ kind, name }) => ({ kind, name }))).toEqual([{ kind: "talent", name: "talents" }]);
    expect(broken[0]?.error).toContain("symbolic link");
    // Control: the same layout with a plain folder has nothing broken.
    await rm(path.join(prompts, "talents"));
    await mkdir(path.join(prompts, "talents"));
    expect(await store.broken()).toEqual([]);
  });
});
