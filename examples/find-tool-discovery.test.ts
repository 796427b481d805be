import { expect, it } from "vitest";
import { main } from "./find-tool-discovery.js";

it("runs the README's main example: discover, activate, call", async () => {
  const lines: string[] = [];
  const transcript = await main((line) => lines.push(line));
  expect(transcript.turns.map((turn) => turn.visibleTools)).toEqual([
    ["find_tool", "read_note"],
    ["find_tool", "read_note", "weather_forecast"],
    ["find_tool", "read_note", "weather_forecast"],
  ]);
  expect(transcript.calls.map((call) => [call.name, call.result.ok])).toEqual([
    ["find_tool", true],
    ["weather_forecast", true],
  ]);
  expect(lines).toContain("  event tool.activated: weather_forecast (via find_tool)");
  expect(transcript.finalText).toContain('"city":"Lisbon"');
});
