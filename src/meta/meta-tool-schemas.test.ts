import { describe, expect, it } from "vitest";
import { z } from "zod";
import { expectSameParsing, inputs, jsonSchemaText } from "../../test/support/zod-parity.js";
import type { StandardSchemaV1 } from "../tool/standard-schema.js";
import { createFindTool } from "./find-tool.js";
import { createToolboxTool } from "./toolbox.js";

// find_tool and toolbox were defined with zod until the root entry stopped importing it (zod was
// most of the root's import time). These are those zod schemas, verbatim: the tools must send the
// same JSON Schema and parse every input to the same value or the same issues.
const [DEFAULT_LIMIT, MAX_QUERIES, MAX_RESULTS] = [5, 8, 20];
const queryText = z.string().trim().min(1).max(2000);
const findToolInput = z.object({
  query: queryText.optional().describe('Keywords, or "select:<name>"'),
  queries: z.array(queryText).min(1).max(MAX_QUERIES).optional().describe("One query per capability (merged)"),
  limit: z.number().int().min(1).max(MAX_RESULTS).optional().describe(`Most tools per query (default ${DEFAULT_LIMIT})`),
});
const toolboxInput = z.object({
  action: z.enum(["describe", "run"]),
  tool: z.string().min(1).describe("A name from Additional tools"),
  args: z.looseObject({}).optional().describe("Arguments, for run"),
});

describe.each([
  ["find_tool", createFindTool(), findToolInput],
  ["toolbox", createToolboxTool(), toolboxInput],
] as const)("%s's input schema", (_name, tool, zodSchema) => {
  it("is the JSON Schema the zod schema gave", () => {
    expect(jsonSchemaText(tool.inputSchema)).toBe(jsonSchemaText(zodSchema));
  });

  it("parses any input to the zod schema's value or issues", async () => {
    await expectSameParsing(tool.inputSchema, zodSchema, inputs(Object.keys(zodSchema.shape), ["describe", "run"]));
  });
});

it("trims queries and keeps toolbox args as given (values the handlers rely on)", async () => {
  const find = await (createFindTool().inputSchema as StandardSchemaV1)["~standard"].validate({
    query: "  read file ",
    queries: [" a "],
  });
  expect(find).toEqual({ value: { query: "read file", queries: ["a"] } });
  const args = { path: "a.txt", nested: { deep: [1] } };
  const toolbox = (await (createToolboxTool().inputSchema as StandardSchemaV1)["~standard"].validate({
    action: "run",
    tool: "read",
    args,
  })) as {
    value: { args: unknown };
  };
  expect(toolbox.value.args).toEqual(args);
  expect(toolbox.value.args).not.toBe(args);
});
