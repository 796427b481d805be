import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createGitTools } from "../../src/git/index.js";
import { expectSameParsing, inputs, jsonSchemaText } from "../support/zod-parity.js";

// The git tools' inputs were zod schemas until the git entry stopped importing zod (its import
// was most of a new process's cost). These are those zod schemas, verbatim: the tools must send
// the same JSON Schema and parse every input to the same value or the same issues.
const logSearchInput = z.object({
  query: z.string().min(1).max(1000).describe("The text to look for"),
  mode: z
    .enum(["message", "pickaxe", "both"])
    .optional()
    .describe(
      '"message": commit messages containing the text, case-insensitive (git log -i -F --grep). "pickaxe": commits that add or remove the text in a file, exact case (git log -S). "both" (default): either.',
    ),
  path: z.string().min(1).optional().describe("Only commits that change this file or directory (relative to the workspace)"),
  ref: z.string().min(1).optional().describe("Where history starts (default HEAD): a branch, tag or commit id"),
  since: z.string().min(1).optional().describe('Only commits since then: "2024-05-01" or "2 weeks ago"'),
  max_results: z.number().int().min(1).max(200).optional().describe("Most commits to return (default 20)"),
});
const fileHistoryInput = z.object({
  path: z.string().min(1).describe("The file (or directory) whose history to list, relative to the workspace"),
  ref: z.string().min(1).optional().describe("Where history starts (default HEAD)"),
  follow_renames: z.boolean().optional().describe("Follow a file across renames, like git log --follow (default true)"),
  since: z.string().min(1).optional().describe('Only commits since then: "2024-05-01" or "2 weeks ago"'),
  max_results: z.number().int().min(1).max(200).optional().describe("Most commits to return (default 20)"),
});
const blameInput = z.object({
  path: z.string().min(1).describe("The file to blame, relative to the workspace"),
  ref: z.string().min(1).optional().describe("The version to blame (default HEAD)"),
  line: z.number().int().min(1).optional().describe("One line to blame (with context lines around it)"),
  start_line: z.number().int().min(1).optional().describe("First line of a range to blame (instead of line)"),
  end_line: z.number().int().min(1).optional().describe("Last line of the range (default start_line)"),
  context: z.number().int().min(0).max(50).optional().describe("Lines blamed around the range too (default 3)"),
});
const diffRangeInput = z.object({
  from: z
    .string()
    .min(1)
    .describe(
      "The old side: a branch, tag or commit id (e.g. main, v1.2, HEAD~3); or a range without to, as git diff reads it: A..B (A to B) or A...B (what B changed since it forked from A, from their merge base)",
    ),
  to: z.string().min(1).optional().describe("The new side (default HEAD)"),
  path: z.string().min(1).optional().describe("Only this file or directory (relative to the workspace)"),
  context_lines: z.number().int().min(0).max(20).optional().describe("Unchanged lines around each change (default 3)"),
  max_bytes: z.number().int().min(1000).max(200_000).optional().describe("Budget for the diff text (default 30000)"),
});
const contributorInput = z.object({
  path: z.string().min(1).optional().describe("A file or directory (relative to the workspace); default the whole repository"),
  ref: z.string().min(1).optional().describe("Where history starts (default HEAD)"),
  since: z.string().min(1).optional().describe('Only commits since then: "2024-05-01" or "6 months ago"'),
  max_results: z
    .number()
    .int()
    .min(1)
    .max(100)
    .optional()
    .describe("Most contributors to return, most active first (default 10)"),
});

const zodSchemas: Record<string, z.ZodObject> = {
  git_log_search: logSearchInput,
  git_file_history: fileHistoryInput,
  git_blame_context: blameInput,
  git_diff_range: diffRangeInput,
  git_contributor_context: contributorInput,
};

describe.each(createGitTools().map((tool) => [tool.name, tool] as const))("%s's input schema", (name, tool) => {
  const zodSchema = zodSchemas[name] as z.ZodObject;

  it("is the JSON Schema the zod schema gave", () => {
    expect(jsonSchemaText(tool.inputSchema)).toBe(jsonSchemaText(zodSchema));
  });

  it("parses any input to the zod schema's value or issues", async () => {
    await expectSameParsing(tool.inputSchema, zodSchema, inputs(Object.keys(zodSchema.shape), ["message", "pickaxe", "both"]));
  });
});
