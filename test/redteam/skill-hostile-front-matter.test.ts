import { readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { RecipeDirectory, skillManageToolGroup } from "agent-tool-catalog/host";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { failure, hostRun, record, temporaryDirectory, text } from "../host/support/host-test-kit.js";

// Red team: YAML a model writes (skill_manage's content) or a recipe file holds. The parser's
// alias-count guard stops a "billion laughs" document, but its ReferenceError escaped the
// skill and recipe parsers: the model got tool_failed instead of invalid_skill naming the file.

let root: { path: string; remove(): Promise<void> };
beforeEach(async () => {
  root = await temporaryDirectory("redteam-skill-yaml-");
});
afterEach(() => root.remove());

const LEVELS = ["b", "c", "d", "e", "f", "g"];
const aliasBomb = (name: string, indent = "") =>
  [
    `${indent}a: &a ["x","x","x","x","x","x","x","x","x","x"]`,
    ...LEVELS.map((level, index) => {
      const previous = index === 0 ? "a" : LEVELS[index - 1];
      return `${indent}${level}: &${level} [${Array(10).fill(`*${previous}`).join(",")}]`;
    }),
    `${indent}name: ${name}`,
  ].join("\n");

function manageRun() {
  return hostRun([skillManageToolGroup({ skillsDir: root.path })]).run;
}

describe("hostile YAML in skills and recipes", () => {
  it("an alias bomb in a skill's front matter is invalid_skill at once, and nothing is stored", async () => {
    const content = `---\n${aliasBomb("bomb")}\ndescription: d\n---\nbody`;
    const start = process.cpuUsage();
    const error = failure(await manageRun().call("skill_manage", { action: "create", name: "bomb", content }));
    const used = process.cpuUsage(start);
    expect(error.code).toBe("invalid_skill");
    expect(error.message).toContain("bomb/SKILL.md");
    expect((used.user + used.system) / 1000).toBeLessThan(2000);
    expect(await readdir(root.path).catch(() => [])).toEqual([]);
  });

  it("an alias bomb in a recipe file is invalid_recipe", async () => {
    await writeFile(path.join(root.path, "bomb.yaml"), `${aliasBomb("bomb")}\ndescription: d\nsteps: []\n`);
    await expect(new RecipeDirectory(root.path).load("bomb")).rejects.toMatchObject({ code: "invalid_recipe" });
  });

  // Held before this round (kept as fast checks).
  it("a __proto__ key in the front matter is an own key, not the document's prototype: context stays inline", async () => {
    const content = "---\nname: proto\ndescription: d\n__proto__:\n  context: fork\n---\nbody";
    const run = manageRun();
    expect(record(await run.call("skill_manage", { action: "create", name: "proto", content })).created).toBe("skill://proto");
    const stored = text(await run.call("skill_manage", { action: "read", name: "proto" }));
    expect(stored).not.toContain("fork");
    expect(stored).toContain("name: proto");
  });

  it("front matter nested 50,000 deep is invalid_skill naming the line", async () => {
    const content = `---\nname: deep\ndescription: d\nx: ${"[".repeat(50_000)}${"]".repeat(50_000)}\n---\nbody`;
    const error = failure(await manageRun().call("skill_manage", { action: "create", name: "deep", content }));
    expect(error.code).toBe("invalid_skill");
  });

  it.each(["../escape", "a/b", "__proto__", "constructor.", "A", "x".repeat(65), "nul\u0000", "\ud800"])(
    "skill name %j is invalid_name",
    async (name) => {
      const error = failure(await manageRun().call("skill_manage", { action: "create", name, description: "d", body: "b" }));
      expect(error.code).toBe("invalid_name");
      expect(await readdir(root.path).catch(() => [])).toEqual([]);
    },
  );
});
