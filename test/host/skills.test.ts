import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { createRegistry, defineTool } from "agent-tool-catalog";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  DirectorySkillStore,
  DirectorySkillVerifier,
  InMemoryPackRegistry,
  ManualClock,
  RunDirectory,
  type SkillToolGroupOptions,
  skillToolGroup,
} from "../../src/host/index.js";
import {
  failure,
  hostRun,
  output,
  record,
  ScriptedRunner,
  temporaryDirectory,
  text,
  toolNames,
} from "./support/host-test-kit.js";

let skills: { path: string; remove(): Promise<void> };

async function writeSkill(name: string, content: string) {
  await mkdir(path.join(skills.path, name), { recursive: true });
  await writeFile(path.join(skills.path, name, "SKILL.md"), content);
}

beforeEach(async () => {
  skills = await temporaryDirectory("atc-skills-");
  await writeSkill(
    "review",
    "---\nname: review\ndescription: Review a change for bugs and risky patterns\nallowed-tools: echo, find_tool\n---\nReview $ARGUMENTS carefully.\n",
  );
  await writeSkill("plain", "---\nname: plain\ndescription: Say hello politely to whoever asks\n---\nSay hello.\n");
  await writeSkill(
    "research",
    "---\nname: research\ndescription: Research a topic in a forked agent\ncontext: fork\nallowed-tools: [echo]\nmodel: small\n---\nResearch the topic.\n",
  );
  await writeSkill("broken", "---\nname: broken\ndescription: [unclosed\n---\nbody\n");
});
afterEach(() => skills.remove());

const echo = defineTool({
  name: "echo",
  description: "Echo.",
  inputSchema: z.object({ text: z.string() }),
  handler: ({ text }) => text,
});
const other = defineTool({ name: "other", description: "Other.", inputSchema: z.object({}), handler: () => "other" });

function skillRun(options: Partial<SkillToolGroupOptions> = {}, allowedTools?: string[]) {
  const runs = new RunDirectory();
  const runner = new ScriptedRunner((request) => ({ output: `forked: ${request.prompt}` }));
  const registry = createRegistry({
    tools: [echo, other],
    groups: [skillToolGroup({ skillsDir: skills.path, resolveRun: runs.resolve, agentRunner: runner, ...options })],
  });
  const run = runs.track(registry.createRun({ profile: "full", ...(allowedTools === undefined ? {} : { allowedTools }) }));
  run.activate(registry.list({ tier: "deferred" }).map((tool) => tool.name));
  return { registry, run, runner, runs };
}

describe("skill tool group", () => {
  it("is present with a skills dir, a store, a verifier or packs, and the switch on", () => {
    expect(toolNames(hostRun([skillToolGroup({})]).registry)).toEqual([]);
    expect(toolNames(hostRun([skillToolGroup({ skillsDir: skills.path, enableSkills: false })]).registry)).toEqual([]);
    expect(toolNames(hostRun([skillToolGroup({ store: new DirectorySkillStore(skills.path) })]).registry)).toEqual(["skill"]);
    expect(toolNames(hostRun([skillToolGroup({ packs: new InMemoryPackRegistry([]) })]).registry)).toEqual([
      "manage_skill_packs",
    ]);
    const store = new DirectorySkillStore(skills.path);
    const all = hostRun([
      skillToolGroup({
        skillsDir: skills.path,
        verifier: new DirectorySkillVerifier(store),
        packs: new InMemoryPackRegistry([]),
      }),
    ]);
    expect(toolNames(all.registry)).toEqual(["skill", "create_skill", "verify_skill", "manage_skill_packs"]);
    expect(all.registry.get("skill")?.tier).toBe("core");
  });
});

describe("skill", () => {
  it("lists skills, broken ones with the YAML line at fault", async () => {
    const listing = text(await skillRun().run.call("skill", { action: "list" }));
    expect(listing).toContain("- plain: Say hello politely to whoever asks");
    expect(listing).toContain("- research (fork): Research a topic in a forked agent");
    expect(listing).toMatch(/- broken \(broken: broken\/SKILL\.md: malformed YAML front matter at line \d+/);
  });

  it("injects an inline skill's body with its arguments", async () => {
    const { run } = skillRun();
    expect(text(await run.call("skill", { name: "plain", arguments: "Ada" }))).toBe(
      '<skill name="plain">\nSay hello.\n\nARGUMENTS: Ada\n</skill>',
    );
    expect(text(await run.call("skill", { name: "review", arguments: "PR 12" }))).toContain("Review PR 12 carefully.");
  });

  it("applies allowed-tools to the run until the skill ends; skill itself stays available", async () => {
    const { run } = skillRun();
    expect(text(await run.call("other", {}))).toBe("other");
    expect(text(await run.call("skill", { name: "review" }))).toContain("you may use only: echo, find_tool, AskUserQuestion");
    expect(run.activeSkills()).toEqual(["review"]);
    expect(failure(await run.call("other", {})).code).toBe("tool_not_allowed");
    expect(text(await run.call("echo", { text: "still here" }))).toBe("still here");
    text(await run.call("skill", { name: "review" }));
    expect(run.activeSkills()).toEqual(["review"]);
    expect(text(await run.call("skill", { action: "end", name: "review" }))).toContain("lifted");
    expect(text(await run.call("other", {}))).toBe("other");
    expect(text(await run.call("skill", { action: "end", name: "review" }))).toContain("not active");
  });

  it("refuses a skill with allowed-tools in a run the host's resolver does not know (skill_constraint_unavailable), leaving the run as it was", async () => {
    // The control, the same skill applied in a tracked run, is the test above.
    const { registry } = skillRun();
    const untracked = registry.createRun({ profile: "full" });
    untracked.activate(registry.list({ tier: "deferred" }).map((tool) => tool.name));
    const refused = await untracked.call("skill", { name: "review" });
    expect(failure(refused).code).toBe("skill_constraint_unavailable");
    expect(JSON.stringify(refused)).not.toContain("carefully");
    expect(untracked.activeSkills()).toEqual([]);
    expect(text(await untracked.call("other", {}))).toBe("other");
    // Control: a skill without a tool limit runs in the same run.
    expect(text(await untracked.call("skill", { name: "plain" }))).toContain("Say hello.");
  });

  it("works under an allow-list that does not name it (always available)", async () => {
    const { run } = skillRun({}, ["echo"]);
    expect(text(await run.call("skill", { name: "plain" }))).toContain("Say hello.");
  });

  it("runs a fork skill in a subagent limited to its tools", async () => {
    const { run, runner } = skillRun();
    expect(text(await run.call("skill", { name: "research", arguments: "croner" }))).toBe(
      'Skill "research" ran in a subagent. Its result:\n\nforked: Research the topic.\n\nARGUMENTS: croner',
    );
    expect(runner.requests[0]).toMatchObject({ depth: 1, model: "small", allowedTools: ["echo"], parentRunId: run.id });
    expect(run.activeSkills()).toEqual([]);
  });

  it("constrains the calling run through its context by default, and fails closed without a way to fork", async () => {
    const noRun = hostRun([skillToolGroup({ skillsDir: skills.path })]).run;
    expect(text(await noRun.call("skill", { name: "review" }))).toContain("While this skill is active you may use only");
    expect(noRun.activeSkills()).toEqual(["review"]);
    text(await noRun.call("skill", { action: "end", name: "review" }));
    expect(noRun.activeSkills()).toEqual([]);
    expect(failure(await noRun.call("skill", { name: "research" })).code).toBe("fork_unavailable");
    expect(text(await noRun.call("skill", { name: "plain" }))).toContain("Say hello.");
  });

  it("reports unknown, broken and unnamed skills", async () => {
    const { run } = skillRun();
    expect(failure(await run.call("skill", { name: "nope" }))).toMatchObject({
      code: "unknown_skill",
      hint: "Skills: plain, research, review.",
    });
    expect(failure(await run.call("skill", { name: "broken" }))).toMatchObject({
      code: "invalid_skill",
      message: expect.stringContaining("malformed YAML"),
    });
    expect(failure(await run.call("skill", { name: "../plain" })).code).toBe("invalid_name");
    expect(failure(await run.call("skill", {})).code).toBe("invalid_input");
  });
});

describe("create_skill and verify_skill", () => {
  it("writes SKILL.md with front matter that reads back, refusing bad names and duplicates", async () => {
    const { run } = skillRun();
    const created = text(
      await run.call("create_skill", {
        name: "greet",
        description: "Greet the user: colon-safe",
        body: "Greet $ARGUMENTS.",
        allowed_tools: ["echo"],
        context: "fork",
      }),
    );
    expect(created).toContain(path.join(skills.path, "greet", "SKILL.md"));
    const file = await readFile(path.join(skills.path, "greet", "SKILL.md"), "utf8");
    expect(file).toBe(
      '---\nname: greet\ndescription: "Greet the user: colon-safe"\nallowed-tools:\n  - echo\ncontext: fork\n---\n\nGreet $ARGUMENTS.\n',
    );
    expect(text(await run.call("skill", { name: "greet", arguments: "Ada" }))).toContain("forked: Greet Ada.");
    expect(failure(await run.call("create_skill", { name: "greet", description: "d", body: "b" })).code).toBe("skill_exists");
    for (const name of ["../escape", "a/b", ".git", "Caps"]) {
      expect(failure(await run.call("create_skill", { name, description: "d", body: "b" })).code).toBe("invalid_name");
    }
    expect(
      failure(await run.call("create_skill", { name: "bad-tools", description: "d", body: "b", allowed_tools: ["no spaces"] }))
        .code,
    ).toBe("invalid_skill");
  });

  it("verifies skills and writes the verification record next to them", async () => {
    const store = new DirectorySkillStore(skills.path);
    const verifier = new DirectorySkillVerifier(store, { clock: new ManualClock(Date.UTC(2025, 2, 3)) });
    const { run } = skillRun({ verifier });
    await writeSkill(
      "ghost",
      "---\nname: ghost\ndescription: Uses a tool that is not there at all\nallowed-tools: [echo, teleport]\n---\nGo.\n",
    );
    const result = record(await run.call("verify_skill", { name: "ghost" }));
    expect(result).toEqual({
      name: "ghost",
      valid: true,
      issues: [{ severity: "warning", message: 'allowed-tools names "teleport", which this catalog does not have' }],
      verified_at: "2025-03-03T00:00:00.000Z",
    });
    const saved = JSON.parse(await readFile(path.join(skills.path, "ghost", ".verification.json"), "utf8"));
    expect(saved).toMatchObject({
      name: "ghost",
      valid: true,
      verifiedAt: "2025-03-03T00:00:00.000Z",
      contentHash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(record(await run.call("verify_skill", { name: "broken" }))).toMatchObject({
      valid: false,
      issues: [{ severity: "error" }],
    });
    expect(failure(await run.call("verify_skill", { name: "missing" })).code).toBe("unknown_skill");
    expect(failure(await run.call("verify_skill", { name: "../review" })).code).toBe("invalid_name");
  });
});

describe("manage_skill_packs", () => {
  it("lists, searches and activates packs", async () => {
    const activated: string[] = [];
    const packs = new InMemoryPackRegistry(
      [
        { name: "frontend", description: "React and CSS helpers", skills: ["component", "styles"] },
        { name: "release", description: "Changelogs and version bumps", skills: ["changelog"] },
      ],
      { onActivate: (pack) => void activated.push(pack.name) },
    );
    const { run } = skillRun({ packs });
    expect(
      (output(await run.call("manage_skill_packs", { action: "list" })) as { name: string }[]).map((pack) => pack.name),
    ).toEqual(["frontend", "release"]);
    expect(output(await run.call("manage_skill_packs", { action: "search", query: "changelog version" }))).toEqual([
      { name: "release", description: "Changelogs and version bumps", skills: ["changelog"], active: false },
    ]);
    expect(record(await run.call("manage_skill_packs", { action: "activate", name: "release" })).activated).toMatchObject({
      active: true,
    });
    expect(activated).toEqual(["release"]);
    expect(failure(await run.call("manage_skill_packs", { action: "activate", name: "nope" })).code).toBe("unknown_pack");
    expect(failure(await run.call("manage_skill_packs", { action: "search" })).code).toBe("invalid_input");
  });
});
