import { MockEmbeddingModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { embedderFromEmbedMany, hybridToolSearch } from "./embedder-from-embed-many.js";

/** A fake provider: 3-number vectors from a few keywords, recording every request. */
function fakeModel() {
  const axes = [/click|press|button/i, /mail|message|send/i, /weather|rain|forecast/i];
  return new MockEmbeddingModelV3({
    maxEmbeddingsPerCall: 2,
    doEmbed: async ({ values }) => ({
      embeddings: values.map((value) => axes.map((axis) => (axis.test(value) ? 1 : 0.01))),
      warnings: [],
    }),
  });
}

describe("example: find_tool's embedder from the AI SDK embedMany", () => {
  const tools = [
    { name: "browser_click", description: "Click an element on the page." },
    { name: "send_email", description: "Send an email message." },
    { name: "weather_forecast", description: "Weather forecast for a city." },
  ];

  it("embeds through embedMany in the provider's batch size and ranks by meaning", async () => {
    const model = fakeModel();
    const search = hybridToolSearch(model, tools);
    const hits = await search.searchHybrid("press it", 3);
    expect(hits[0]?.name).toBe("browser_click");
    // 3 tool texts in batches of 2 (the provider's limit), then the query.
    expect(model.doEmbedCalls.map((call) => call.values.length)).toEqual([2, 1, 1]);
  });

  it("passes the abort signal to the provider call", async () => {
    const model = fakeModel();
    const embedder = embedderFromEmbedMany(model, { id: "fake", dimensions: 3 });
    const controller = new AbortController();
    await embedder.embed(["send a message"], { signal: controller.signal });
    expect(model.doEmbedCalls[0]?.abortSignal).toBe(controller.signal);
  });
});
