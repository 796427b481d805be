import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { createRegistry, defineTool, type Registry } from "agent-tool-catalog";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { type AgentProfile, InMemoryRunHistory, ManualClock, parseAgentProfile, profileToolGroup } from "../../src/host/index.js";
import { failure, hostRun, output, record, temporaryDirectory } from "./support/host-test-kit.js";

let directory: { path: string; remove(): Promise<void> };
beforeEach(async () => {
  directory = await temporaryDirectory("atc-profiles-");
});
afterEach(() => directory.remove());

const SECURITY_REVIEW: AgentProfile = {
  name: "security-review",
  description: "Review code changes for security vulnerabilities and unsafe patterns",
  allowedTools: ["read", "grep"],
};
const BUILTIN: AgentProfile[] = [
  SECURITY_REVIEW,
  { name: "docs-writer", description: "Write and edit documentation, READMEs and guides" },
];

const simpleTool = (name: string, tier: "core" | "deferred" = "core") =>
  defineTool({ name, description: `The ${name} tool.`, inputSchema: z.object({}), tier, handler: () => name });

function profileRun(options: { dir?: boolean; registry?: () => Registry; history?: InMemoryRunHistory } = {}) {
  return hostRun([
    profileToolGroup({
      profiles: BUILTIN,
      clock: new ManualClock(Date.UTC(2025, 5, 1)),
      ...(options.dir === false ? {} : { profilesDir: directory.path }),
      ...(options.registry === undefined ? {} : { registry: options.registry }),
      ...(options.history === undefined ? {} : { history: options.history }),
    }),
  ]);
}

describe("profile tools", () => {
  it("registers create/update/delete only with a profiles directory", () => {
    const names = (registry: Registry) => registry.list({ tier: "deferred" }).map((tool) => tool.name);
    expect(names(profileRun({ dir: false }).registry)).toEqual([
      "list_profiles",
      "get_profile",
      "get_profile_manifest",
      "recommend_profile",
      "get_efficiency_report",
      "validate_profile",
    ]);
    expect(names(profileRun().registry)).toEqual(expect.arrayContaining(["create_profile", "update_profile", "delete_profile"]));
  });

  it("creates, reads, updates and deletes TOML profiles, atomically and by name", async () => {
    const { run } = profileRun();
    const created = record(
      await run.call("create_profile", {
        name: "tester",
        description: "Writes unit tests",
        model: "m1",
        max_steps: 20,
        allowed_tools: ["read"],
        tool_profile: "core",
      }),
    );
    expect(created.created).toMatchObject({ name: "tester", source: "directory", max_steps: 20, tool_profile: "core" });
    expect(created.warnings).toEqual(['no tool named "read" is registered']);
    const file = await readFile(path.join(directory.path, "tester.toml"), "utf8");
    expect(file).toContain('description = "Writes unit tests"');
    expect(parseAgentProfile(file, "tester")).toMatchObject({ ok: true, profile: { model: "m1", tools: { profile: "core" } } });
    expect(failure(await run.call("create_profile", { name: "tester", description: "again" })).code).toBe("profile_exists");
    expect(failure(await run.call("create_profile", { name: "docs-writer", description: "shadow" })).code).toBe("profile_exists");
    const updated = record(await run.call("update_profile", { name: "tester", description: "Writes and runs unit tests" }));
    expect(updated.updated).toMatchObject({ description: "Writes and runs unit tests", model: "m1", max_steps: 20 });
    expect(record(await run.call("get_profile", { name: "tester" })).description).toBe("Writes and runs unit tests");
    const listed = output(await run.call("list_profiles", {})) as { name: string; source: string }[];
    expect(listed.map((row) => `${row.name}:${row.source}`)).toEqual([
      "docs-writer:builtin",
      "security-review:builtin",
      "tester:directory",
    ]);
    expect(output(await run.call("delete_profile", { name: "tester" }))).toBe('Deleted profile "tester".');
    expect(await readdir(directory.path)).toEqual([]);
    expect(failure(await run.call("get_profile", { name: "tester" }))).toMatchObject({
      code: "unknown_profile",
      hint: expect.stringContaining("docs-writer"),
    });
  });

  it("refuses names that could leave the directory, and changes to built-in profiles", async () => {
    const { run } = profileRun();
    for (const name of ["../evil", "a/b", "..", ".hidden", "UPPER", "x".repeat(65)]) {
      const error = failure(await run.call("create_profile", { name, description: "x" }));
      expect(error.code === "invalid_name" || error.code === "invalid_input").toBe(true);
    }
    expect(failure(await run.call("get_profile", { name: "../../etc/passwd" })).code).toBe("invalid_name");
    expect(failure(await run.call("delete_profile", { name: "../tester" })).code).toBe("invalid_name");
    expect(await readdir(directory.path)).toEqual([]);
    expect(failure(await run.call("update_profile", { name: "docs-writer", model: "x" })).code).toBe("builtin_profile");
    expect(failure(await run.call("delete_profile", { name: "docs-writer" })).code).toBe("builtin_profile");
  });

  it("validates TOML without writing, and lists broken files", async () => {
    const { run } = profileRun();
    expect(record(await run.call("validate_profile", { name: "ok", toml: 'description = "Fine"\nmax_steps = 5\n' }))).toEqual({
      valid: true,
      issues: [],
      warnings: [],
      exists: false,
    });
    const syntax = record(await run.call("validate_profile", { name: "bad", toml: "description = \n" }));
    expect(syntax).toMatchObject({
      valid: false,
      issues: [{ field: "(toml)", message: expect.stringContaining("Invalid TOML") }],
    });
    const fields = record(
      await run.call("validate_profile", {
        name: "bad",
        toml: 'max_steps = 0\nmodle = "x"\nallowed_tools = ["no spaces"]\n[tools]\nprofile = "huge"\n',
      }),
    );
    expect((fields.issues as { field: string }[]).map((issue) => issue.field)).toEqual([
      "modle",
      "description",
      "max_steps",
      "allowed_tools",
      "tools",
    ]);
    expect(await readdir(directory.path)).toEqual([]);
    await writeFile(path.join(directory.path, "broken.toml"), "description = [");
    expect(record(await run.call("list_profiles", {})).broken).toEqual([
      { name: "broken", issues: [expect.objectContaining({ field: "(toml)" })] },
    ]);
    expect(failure(await run.call("get_profile", { name: "broken" })).code).toBe("invalid_profile");
  });

  it("recommends profiles by keyword overlap with the task", async () => {
    const { run } = profileRun();
    const result = record(await run.call("recommend_profile", { task: "Review this pull request for security issues" }));
    expect(result.recommendations).toEqual([
      { name: "security-review", score: expect.any(Number), matched: ["review", "secur"] },
    ]);
    expect(record(await run.call("recommend_profile", { task: "bake a cake" }))).toMatchObject({
      recommendations: [],
      note: expect.any(String),
    });
  });

  it("computes the exact manifest from the host's registry", async () => {
    let registry: Registry | undefined;
    const group = profileToolGroup({
      profiles: [{ ...SECURITY_REVIEW, allowedTools: ["read", "grep", "git_log"] }],
      registry: () => {
        if (registry === undefined) throw new Error("the registry is not built yet");
        return registry;
      },
    });
    registry = createRegistry({
      tools: [simpleTool("read"), simpleTool("grep"), simpleTool("write"), simpleTool("git_log", "deferred")],
      groups: [group],
    });
    const run = registry.createRun({ profile: "full" });
    run.activate(["get_profile_manifest"]);
    const manifest = record(await run.call("get_profile_manifest", { name: "security-review" }));
    expect(manifest).toMatchObject({
      exact: true,
      tool_profile: "core",
      eager: ["find_tool", "read", "grep"],
      discoverable: ["git_log"],
      missing: [],
    });
    const declared = record(await profileRun().run.call("get_profile_manifest", { name: "security-review" }));
    expect(declared).toMatchObject({ exact: false, eager: [], missing: ["read", "grep"] });
  });

  it("reports efficiency from run history, empty by default", async () => {
    expect(record(await profileRun().run.call("get_efficiency_report", {}))).toEqual({
      profiles: [],
      note: "No run history recorded.",
    });
    const history = new InMemoryRunHistory();
    const day = 86_400_000;
    const now = Date.UTC(2025, 5, 1);
    const base = { durationMs: 1000, toolCalls: 4, inputTokens: 800, outputTokens: 200 };
    history.add({ ...base, profile: "docs-writer", startedAt: now - day, steps: 4, succeeded: true });
    history.add({ ...base, profile: "docs-writer", startedAt: now - 2 * day, steps: 6, succeeded: false });
    history.add({ ...base, profile: "docs-writer", startedAt: now - 40 * day, steps: 50, succeeded: false });
    const report = record(await profileRun({ history }).run.call("get_efficiency_report", { since_days: 7 }));
    expect(report.profiles).toEqual([
      {
        profile: "docs-writer",
        runs: 2,
        success_rate: 0.5,
        average_steps: 5,
        average_tool_calls: 4,
        average_tokens: 1000,
        average_duration_ms: 1000,
        tokens_per_success: 2000,
      },
    ]);
  });
});
