import { describe, expect, it } from "vitest";
import { compileTool } from "../tool/compile-tool.js";
import { defineTool } from "../tool/define-tool.js";
import { searchDocumentOf } from "./search-document.js";

describe("searchDocumentOf", () => {
  it("lists parameters in schema order, nested objects and array items two levels deep", () => {
    const tool = defineTool({
      name: "ship_order",
      description: "Ship an order.",
      tags: ["shop"],
      annotations: { title: "Ship" },
      inputSchema: {
        type: "object",
        properties: {
          order_id: { type: "string", description: "The order" },
          address: {
            type: "object",
            description: "Where to",
            properties: { city: { type: "string", description: "City name" }, deep: { type: "object", properties: { no: {} } } },
          },
          items: { type: "array", items: { type: "object", properties: { sku: { type: "string", description: "Stock unit" } } } },
          note: { type: "string" },
        },
      },
      handler: () => "",
    });
    const document = searchDocumentOf(compileTool(tool).descriptor, "key");
    expect(document).toEqual({
      id: "key",
      name: "ship_order",
      description: "Ship an order.",
      title: "Ship",
      tags: ["shop"],
      parameters: [
        { name: "order_id", description: "The order" },
        { name: "address", description: "Where to" },
        { name: "city", description: "City name" },
        { name: "deep", description: undefined },
        { name: "items", description: undefined },
        { name: "sku", description: "Stock unit" },
        { name: "note", description: undefined },
      ],
    });
  });
});
