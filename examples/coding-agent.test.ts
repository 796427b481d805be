import { readFileSync, rmSync } from "node:fs";
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

it("is the README's quick start for a full coding agent", () => {
  const source = readFileSync(new URL("./coding-agent.ts", import.meta.url), "utf8");
  const part = source.slice(source.indexOf("// readme:start\n") + "// readme:start\n".length, source.indexOf("  // readme:end"));
  const dedented = part
    .split("\n")
    .map((line) => line.replace(/^ {2}/, ""))
    .join("\n");
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  expect(readme).toContain(dedented);
});
