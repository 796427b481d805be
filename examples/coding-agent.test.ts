import { rmSync } from "node:fs";
import { MockLanguageModelV3 } from "ai/test";
import { expect, it } from "vitest";
import { main } from "./coding-agent.js";

it("builds a full coding agent's catalog in one call and prints what it shows", () => {
  const lines: string[] = [];
  const catalog = main((line) => lines.push(line));
  const text = lines.join("\n");
  expect(text).toMatch(/^\+ fs: read, write, edit/m);
  expect(text).toMatch(/^\+ skill_manage: skill_manage$/m);
  expect(text).toMatch(/^- agents \(absent\)$/m);
  expect(text).toMatch(/^eager tools: .*\bbash\b/m);
  expect(text).toContain("# Additional tools");
  expect(text).toContain("- skill_manage:");
  expect(text).toContain("- session_search:");
  rmSync(catalog.createRun().permissions.workspace as string, { recursive: true, force: true });

  const withModel: string[] = [];
  const second = main((line) => withModel.push(line), { model: new MockLanguageModelV3() });
  expect(withModel.join("\n")).toMatch(/^\+ agents: agent, spawn_agent$/m);
  expect(withModel.join("\n")).toMatch(/^\+ swarm: swarm$/m);
  expect(withModel.join("\n")).toContain("- swarm:");
  rmSync(second.createRun().permissions.workspace as string, { recursive: true, force: true });
});
