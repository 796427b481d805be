import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DirectoryPromptExtensionStore, InMemoryPromptExtensionStore, promptExtensionToolGroup } from "../../src/host/index.js";
import { failure, hostRun, record, temporaryDirectory } from "./support/host-test-kit.js";

describe("create_prompt_extension", () => {
  let root: { path: string; remove(): Promise<void> };
  beforeEach(async () => {
    root = await temporaryDirectory("prompt-ext-");
  });
  afterEach(() => root.remove());

  it("is always registered, kept in memory without a directory", async () => {
    const store = new InMemoryPromptExtensionStore();
    const { registry, run } = hostRun([promptExtensionToolGroup({ store })]);
    expect(
      hostRun([promptExtensionToolGroup()])
        .registry.list()
        .map((tool) => tool.name),
    ).toContain("create_prompt_extension");
    expect(registry.list().find((tool) => tool.name === "create_prompt_extension")?.mutating).toBe(true);
    const out = record(
      await run.call("create_prompt_extension", {
        kind: "behavior",
        name: "tests-first",
        description: "Run the tests before saying done",
        content: "Before you report a change as done, run the test suite and quote its summary line.",
      }),
    );
    expect(out.created).toBe("behavior/tests-first");
    expect(await store.list()).toEqual([
      expect.objectContaining({ kind: "behavior", name: "tests-first", description: "Run the tests before saying done" }),
    ]);
    const again = await run.call("create_prompt_extension", {
      kind: "behavior",
      name: "tests-first",
      description: "x",
      content: "y",
    });
    expect(failure(again).code).toBe("prompt_extension_exists");
  });

  it("writes behaviors and talents as Markdown files with front matter, and reads them back", async () => {
    const { run } = hostRun([promptExtensionToolGroup({ directory: root.path })]);
    await run.call("create_prompt_extension", {
      kind: "talent",
      name: "sql-migrations",
      description: "Writing reversible SQL migrations",
      content: "Every migration has a down step.",
    });
    const text = await readFile(path.join(root.path, "talents", "sql-migrations.md"), "utf8");
    expect(text).toMatch(/^---\ndescription: Writing reversible SQL migrations\n/);
    expect(text).toContain("Every migration has a down step.");
    const listed = await new DirectoryPromptExtensionStore(root.path).list();
    expect(listed).toEqual([
      expect.objectContaining({ kind: "talent", name: "sql-migrations", content: "Every migration has a down step." }),
    ]);
    for (const name of ["../escape", "Upper", ".hidden"]) {
      const result = await run.call("create_prompt_extension", { kind: "talent", name, description: "d", content: "c" });
      expect(failure(result).code).toBe("invalid_name");
    }
  });
});
