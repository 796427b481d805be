/**
 * README error table: `skill_constraint_unavailable`, "the skill's tool constraint cannot be
 * applied in this run". A skill with `allowed-tools` is not run (its instructions not shown, the
 * run not left unconstrained) when the host's run resolver does not know the calling run, here a
 * real `RunDirectory` the run was never tracked in; controls: the same skill in a tracked run is
 * applied, and a skill without `allowed-tools` runs in the untracked run.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { createRegistry, defineTool } from "agent-tool-catalog";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { RunDirectory, skillToolGroup } from "../../src/host/index.js";
import { failure, temporaryDirectory, text } from "./support/host-test-kit.js";

let skills: { path: string; remove(): Promise<void> };

beforeEach(async () => {
  skills = await temporaryDirectory("atc-claims-skills-");
  const write = async (name: string, content: string) => {
    await mkdir(path.join(skills.path, name), { recursive: true });
    await writeFile(path.join(skills.path, name, "SKILL.md"), content);
  };
  await write(
    "review",
    "---\nname: review\ndescription: Review a change for risky patterns\nallowed-tools: echo\n---\nReview carefully.\n",
  );
  await write("plain", "---\nname: plain\ndescription: Say hello politely to whoever asks\n---\nSay hello.\n");
});
afterEach(() => skills.remove());

const echo = defineTool({
  name: "echo",
  description: "Echo.",
  inputSchema: z.object({ text: z.string() }),
  handler: ({ text }) => text,
});
const other = defineTool({ name: "other", description: "Other.", inputSchema: z.object({}), handler: () => "other" });

function setup() {
  const runs = new RunDirectory();
  const registry = createRegistry({
    tools: [echo, other],
    groups: [skillToolGroup({ skillsDir: skills.path, resolveRun: runs.resolve })],
  });
  const open = () => {
    const run = registry.createRun({ profile: "full" });
    run.activate(registry.list({ tier: "deferred" }).map((tool) => tool.name));
    return run;
  };
  return { runs, open };
}

describe("a skill whose tool limit the host cannot apply", () => {
  it("is refused with skill_constraint_unavailable and leaves the run as it was", async () => {
    const { open } = setup();
    const untracked = open();
    const refused = await untracked.call("skill", { name: "review" });
    expect(failure(refused).code).toBe("skill_constraint_unavailable");
    expect(JSON.stringify(refused)).not.toContain("Review carefully.");
    expect(untracked.activeSkills()).toEqual([]);
    expect(text(await untracked.call("other", {}))).toBe("other");
    // Control: a skill without a tool limit runs in the same run.
    expect(text(await untracked.call("skill", { name: "plain" }))).toContain("Say hello.");
  });

  it("control: in a run the resolver knows, the same skill runs and its limit applies", async () => {
    const { runs, open } = setup();
    const tracked = runs.track(open());
    expect(text(await tracked.call("skill", { name: "review" }))).toContain("Review carefully.");
    expect(tracked.activeSkills()).toEqual(["review"]);
    expect(failure(await tracked.call("other", {})).code).toBe("tool_not_allowed");
  });
});
