import { expect, it } from "vitest";
import { main } from "./approval-http-server.js";

it("approves one waiting call and denies another over HTTP", async () => {
  const lines: string[] = [];
  const { outputs } = await main((line) => lines.push(line));
  expect(outputs).toEqual([
    "deleted groceries",
    'approval_denied: The call to "delete_note" was not approved: keep my taxes. Nothing was done.',
  ]);
  expect(lines.filter((line) => line.startsWith("GET  /approvals -> delete_note waiting"))).toHaveLength(2);
  expect(lines.at(-1)).toBe('notes deleted: ["groceries"]');
});
