import { readFileSync } from "node:fs";
import { expect, it } from "vitest";

const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");

/** The part of an example file between its readme markers. */
function readmePart(file: string): string {
  const source = readFileSync(new URL(file, import.meta.url), "utf8");
  const start = source.indexOf("// readme:start\n");
  const end = source.indexOf("// readme:end");
  if (start === -1 || end === -1) throw new Error(`${file} has no readme markers`);
  return source.slice(start + "// readme:start\n".length, end);
}

it("shows the quick start exactly as examples/quick-start.ts runs it", async () => {
  expect(readme).toContain(`\`\`\`ts\n${readmePart("./quick-start.ts")}\`\`\``);
  const { run } = await import("./quick-start.js");
  expect(run.definitions().map((tool) => tool.name)).toEqual(["find_tool", "weather_forecast"]);
});

it("starts with what the library is and exactly two commands", () => {
  const firstScreen = readme.split("\n").slice(0, 15).join("\n");
  expect(firstScreen).toContain("npm install && npm run example");
  expect(firstScreen).toMatch(/^npm test\b/m);
});
