// Every example has its run command in the README, and prints what it shows when run that way.
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("..", import.meta.url));
const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
const files = readdirSync(new URL(".", import.meta.url)).filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"));
const scripts = files.filter((file) => !file.endsWith(".test.ts"));
const exampleTests = files.filter((file) => file.endsWith(".test.ts") && !/^(examples|readme)\.test\.ts$/.test(file));

/** The README's command for an example. */
function command(file: string): string {
  return file === "find-tool-discovery.ts" ? "npm run example" : `npx tsx examples/${file}`;
}

describe("examples", () => {
  it("has the scripts and host tests it should", () => {
    expect(scripts.sort()).toEqual([
      "ai-sdk-harness.ts",
      "anthropic-loop.ts",
      "approval-http-server.ts",
      "coding-agent.ts",
      "embedder-from-embed-many.ts",
      "find-tool-discovery.ts",
      "quick-start.ts",
    ]);
    expect(exampleTests).toContain("unit-test-with-fake-model.test.ts");
  });

  it.each(scripts)("%s: the README has its command", (file) => {
    expect(readme).toContain(`\`${command(file)}\``);
  });

  it("the host unit test example: the README has its command", () => {
    expect(readme).toContain("`npx vitest run examples/unit-test-with-fake-model.test.ts`");
  });

  it.each(scripts)(
    "%s prints what it shows",
    async (file) => {
      const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", `examples/${file}`], {
        cwd: root,
        env: { ...process.env, ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined },
        timeout: 60_000,
      });
      expect(stdout.trim().split("\n").length).toBeGreaterThanOrEqual(3);
    },
    70_000,
  );
});
