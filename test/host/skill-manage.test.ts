import { existsSync } from "node:fs";
import { mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  DirectorySkillStore,
  SkillResources,
  skillManageToolGroup,
  skillToolGroup,
  workspaceSkillsDirectory,
} from "../../src/host/index.js";
import { failure, hostRun, output, record, temporaryDirectory, text } from "./support/host-test-kit.js";

describe("skill_manage", () => {
  let root: { path: string; remove(): Promise<void> };
  let skillsDir: string;
  beforeEach(async () => {
    root = await temporaryDirectory("skill-manage-");
    skillsDir = workspaceSkillsDirectory(root.path, "myapp");
  });
  afterEach(() => root.remove());

  it("follows the .<app>/skills/<name>/SKILL.md convention and is absent without a directory", () => {
    expect(skillsDir).toBe(path.join(root.path, ".myapp", "skills"));
    expect(() => workspaceSkillsDirectory(root.path, "../x")).toThrow(TypeError);
    expect(
      hostRun([skillManageToolGroup({})])
        .registry.list()
        .map((tool) => tool.name),
    ).not.toContain("skill_manage");
  });

  it("creates, lists, reads (by name and skill://), updates and deletes a skill on disk", async () => {
    const { run } = hostRun([skillManageToolGroup({ skillsDir }), skillToolGroup({ skillsDir })]);
    const created = record(
      await run.call("skill_manage", {
        action: "create",
        name: "release-notes",
        description: "Write release notes",
        body: "Read the commits since the last tag.",
        allowed_tools: ["read", "git_log_search"],
      }),
    );
    expect(created.created).toBe("skill://release-notes");
    const file = path.join(skillsDir, "release-notes", "SKILL.md");
    const written = await readFile(file, "utf8");
    expect(written).toMatch(/^---\nname: release-notes\ndescription: Write release notes\nallowed-tools:/);
    // the skill tool reads what skill_manage wrote
    expect(text(await run.call("skill", { name: "release-notes" }))).toContain("Read the commits since the last tag.");
    text(await run.call("skill", { action: "end", name: "release-notes" }));

    const listed = record(await run.call("skill_manage", { action: "list" }));
    expect(listed.skills).toEqual([
      { uri: "skill://release-notes", name: "release-notes", description: "Write release notes", mimeType: "text/markdown" },
    ]);
    expect(text(await run.call("skill_manage", { action: "read", name: "skill://release-notes" }))).toBe(written);

    await run.call("skill_manage", { action: "update", name: "release-notes", body: "Group the commits by area." });
    const updated = await new DirectorySkillStore(skillsDir).get("release-notes");
    expect(updated).toMatchObject({ description: "Write release notes", body: "Group the commits by area." });
    expect(updated?.allowedTools).toEqual(["read", "git_log_search"]);

    expect(record(await run.call("skill_manage", { action: "delete", name: "release-notes" })).deleted).toBe(
      "skill://release-notes",
    );
    expect(existsSync(path.dirname(file))).toBe(false);
    expect(failure(await run.call("skill_manage", { action: "read", name: "release-notes" })).code).toBe("unknown_skill");
  });

  it("accepts a whole SKILL.md, and refuses one whose front matter does not parse or names another skill", async () => {
    const { run } = hostRun([skillManageToolGroup({ skillsDir })]);
    const content = "---\nname: triage\ndescription: Triage an issue\ncontext: fork\n---\nLabel it.\n";
    output(await run.call("skill_manage", { action: "create", name: "triage", content }));
    expect(await new DirectorySkillStore(skillsDir).get("triage")).toMatchObject({ context: "fork", body: "Label it." });
    const wrongName = content.replace("name: triage", "name: other");
    expect(failure(await run.call("skill_manage", { action: "update", name: "triage", content: wrongName })).code).toBe(
      "invalid_skill",
    );
    expect(failure(await run.call("skill_manage", { action: "create", name: "triage", content })).code).toBe("skill_exists");
    expect(failure(await run.call("skill_manage", { action: "update", name: "nope", body: "x" })).code).toBe("unknown_skill");
  });

  it("never leaves the skills directory: traversal names and symlinked folders are refused", async () => {
    const outside = path.join(root.path, "outside");
    await mkdir(path.join(outside, "keep"), { recursive: true });
    await writeFile(path.join(outside, "keep", "SKILL.md"), "---\nname: keep\ndescription: k\n---\nx\n");
    await mkdir(skillsDir, { recursive: true });
    await symlink(path.join(outside, "keep"), path.join(skillsDir, "linked"));
    const { run } = hostRun([skillManageToolGroup({ skillsDir })]);
    for (const name of ["../outside/keep", "skill://../keep", "/etc", ".hidden"]) {
      expect(failure(await run.call("skill_manage", { action: "delete", name })).code).toBe("invalid_name");
    }
    expect(failure(await run.call("skill_manage", { action: "delete", name: "linked" })).code).toBe("invalid_skill");
    expect(existsSync(path.join(outside, "keep", "SKILL.md"))).toBe(true);
  });

  it("serves skills as skill:// resources to the host", async () => {
    const store = new DirectorySkillStore(skillsDir);
    await store.create({ name: "lint", description: "Run the linter", context: "inline", body: "npm run lint" });
    const resources = new SkillResources(store);
    expect(await resources.list()).toEqual([
      { uri: "skill://lint", name: "lint", description: "Run the linter", mimeType: "text/markdown" },
    ]);
    const read = await resources.read("skill://lint");
    expect(read?.text).toContain("npm run lint");
    expect(await resources.read("skill://missing")).toBeUndefined();
  });
});
