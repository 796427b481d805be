import { expect, it } from "vitest";
import { main } from "./anthropic-loop.js";

it("runs the Anthropic loop example over the recorded responses: find_tool, activation, the deferred call", async () => {
  const lines: string[] = [];
  const result = await main({ log: (line) => lines.push(line), live: false });
  expect(result.stopReason).toBe("end_turn");
  expect(result.turns).toBe(3);
  expect(lines).toContain("  event tool.activated: weather_forecast (via find_tool)");
  expect(lines).toContain('assistant calls weather_forecast({"city":"Lisbon","days":2})');
  expect(lines.some((line) => line.startsWith("  result: {") && line.includes('"sky":"sunny"'))).toBe(true);
  expect(lines.at(-1)).toBe("stop: end_turn after 3 request(s)");
});
