/**
 * Red team round 13: the host's data directories may live in the workspace (`.<app>/skills` is
 * `workspaceSkillsDirectory(workspace, app)`), where a run sandboxed to the workspace can make
 * symbolic links to anything (bash inside bubblewrap may `ln -s /home/user/.ssh ...`). skill_manage
 * reads and writes with the host's own file system, not the sandbox's: `read` of a skill whose
 * SKILL.md linked to a file outside returned that file, and `create` under a linked folder wrote
 * outside the workspace. Links inside these directories are no longer followed.
 */
import { mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import {
  DirectoryPromptExtensionStore,
  ProfileDirectory,
  promptExtensionToolGroup,
  RecipeDirectory,
  skillManageToolGroup,
  workspaceSkillsDirectory,
} from "agent-tool-catalog/host";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { failure, hostRun, temporaryDirectory, text } from "../host/support/host-test-kit.js";

let root: { path: string; remove(): Promise<void> };
let workspace: string;
let outside: string;
const SECRET = "TOP SECRET of the host\n";

beforeEach(async () => {
  root = await temporaryDirectory("redteam-skill-link-");
  workspace = path.join(root.path, "workspace");
  outside = path.join(root.path, "outside");
  await mkdir(outside, { recursive: true });
  await mkdir(workspace, { recursive: true });
  await writeFile(path.join(outside, "secret.txt"), SECRET);
});
afterEach(() => root.remove());

function sandboxedRun(skillsDir: string) {
  return hostRun([skillManageToolGroup({ skillsDir })], {
    permissions: { sandbox: "workspace", workspace, approval: "none" },
  }).run;
}

describe("links planted in the workspace's skills directory", () => {
  it("skill_manage read of a SKILL.md linked outside is invalid_skill, and the file is not shown", async () => {
    const skillsDir = workspaceSkillsDirectory(workspace, "myapp");
    await mkdir(path.join(skillsDir, "leak"), { recursive: true });
    await symlink(path.join(outside, "secret.txt"), path.join(skillsDir, "leak", "SKILL.md"));
    const result = await sandboxedRun(skillsDir).call("skill_manage", { action: "read", name: "leak" });
    expect(JSON.stringify(result)).not.toContain("TOP SECRET");
    expect(failure(result).code).toBe("invalid_skill");
  });

  it("skill_manage create and update under a folder linked outside are invalid_skill, and nothing is written there", async () => {
    const skillsDir = workspaceSkillsDirectory(workspace, "myapp");
    await mkdir(skillsDir, { recursive: true });
    await symlink(outside, path.join(skillsDir, "out"));
    const run = sandboxedRun(skillsDir);
    expect(failure(await run.call("skill_manage", { action: "create", name: "out", description: "d", body: "b" })).code).toBe(
      "invalid_skill",
    );
    expect(failure(await run.call("skill_manage", { action: "update", name: "out", body: "b2" })).code).toBe("invalid_skill");
    expect((await readdir(outside)).sort()).toEqual(["secret.txt"]);
  });

  it("control: a plain skill in the same directory is created and read", async () => {
    const skillsDir = workspaceSkillsDirectory(workspace, "myapp");
    const run = sandboxedRun(skillsDir);
    await run.call("skill_manage", { action: "create", name: "plain", description: "A plain skill.", body: "Do it." });
    expect(text(await run.call("skill_manage", { action: "read", name: "plain" }))).toContain("Do it.");
  });

  it("profiles, recipes and prompt extensions linked outside are broken or skipped, never read", async () => {
    const data = path.join(workspace, ".myapp");
    await mkdir(path.join(data, "profiles"), { recursive: true });
    await mkdir(path.join(data, "recipes"), { recursive: true });
    await mkdir(path.join(data, "prompts", "behaviors"), { recursive: true });
    const secret = path.join(outside, "secret.txt");
    await symlink(secret, path.join(data, "profiles", "leak.toml"));
    await symlink(secret, path.join(data, "recipes", "leak.yaml"));
    await symlink(secret, path.join(data, "prompts", "behaviors", "leak.md"));

    const profiles = await new ProfileDirectory(path.join(data, "profiles")).list();
    expect(profiles.broken).toEqual([
      { name: "leak", issues: [{ field: "(file)", message: "it is a symbolic link, which is not followed" }] },
    ]);
    const recipe = new RecipeDirectory(path.join(data, "recipes")).load("leak");
    await expect(recipe).rejects.toMatchObject({ code: "invalid_recipe" });
    await expect(recipe).rejects.not.toThrow(/TOP SECRET/);
    expect(await new DirectoryPromptExtensionStore(path.join(data, "prompts")).list()).toEqual([]);
    expect(await readFile(secret, "utf8")).toBe(SECRET);
  });
});

describe("a prompt extensions folder linked outside", () => {
  it("create_prompt_extension is symlink_refused and writes nothing there; listing reads nothing through it", async () => {
    const prompts = path.join(workspace, ".myapp", "prompts");
    await mkdir(prompts, { recursive: true });
    await symlink(outside, path.join(prompts, "talents"));
    await writeFile(path.join(outside, "stolen.md"), `---\ndescription: outside\n---\n\n${SECRET}`);
    const { run } = hostRun([promptExtensionToolGroup({ directory: prompts })], {
      permissions: { sandbox: "workspace", workspace, approval: "none" },
    });
    const result = await run.call("create_prompt_extension", { kind: "talent", name: "planted", description: "d", content: "c" });
    expect(failure(result).code).toBe("symlink_refused");
    expect((await readdir(outside)).sort()).toEqual(["secret.txt", "stolen.md"]);
    expect(await new DirectoryPromptExtensionStore(prompts).list()).toEqual([]);
    // Control: the other kind's plain folder is written and listed.
    await run.call("create_prompt_extension", {
      kind: "behavior",
      name: "tests",
      description: "Run the tests.",
      content: "Run them.",
    });
    expect((await new DirectoryPromptExtensionStore(prompts).list()).map((extension) => extension.name)).toEqual(["tests"]);
  });
});
