import { type AnyToolDefinition, defineTool } from "../../src/index.js";
import { seededRandom } from "../stats.js";
import type { MetaToolData } from "./metatool-data.js";

const VERBS = ["get", "list", "create", "update", "delete", "search", "fetch", "send", "read", "write", "sync", "export"];

/**
 * `count` MCP-like tools built from the MetaTool vocabulary: names `<server>_<verb>_<noun>`,
 * descriptions of 12-40 words drawn with a Zipf-like skew, two or three parameters each.
 * Deterministic for a given seed. `define` is the `defineTool` to use (an A/B passes the other tree's).
 */
export function syntheticCatalog(
  data: MetaToolData,
  count: number,
  seed = 7,
  define: (definition: Parameters<typeof defineTool>[0]) => AnyToolDefinition = defineTool,
): AnyToolDefinition[] {
  const random = seededRandom(seed);
  const vocabulary = [...new Set(data.tools.flatMap((tool) => tool.description.toLowerCase().match(/[a-z]{3,}/g) ?? []))];
  const pick = () => vocabulary[Math.floor(vocabulary.length * random() ** 2)] as string;
  const tools: AnyToolDefinition[] = [];
  for (let index = 0; index < count; index++) {
    const server = `srv${index % Math.max(1, Math.floor(count / 20))}`;
    const verb = VERBS[index % VERBS.length] as string;
    const noun = pick();
    const words = Array.from({ length: 12 + Math.floor(random() * 28) }, pick);
    const [first, second] = [pick(), pick()];
    tools.push(
      define({
        name: `${server}_${verb}_${noun}_${index}`.slice(0, 64),
        description: `${verb[0]?.toUpperCase()}${verb.slice(1)} ${noun}: ${words.join(" ")}.`,
        tier: "deferred",
        tags: ["mcp", `mcp_server:${server}`],
        inputSchema: {
          type: "object",
          properties: {
            [first]: { type: "string", description: `The ${first} ${pick()}` },
            [`${second}_id`]: { type: "string", description: `Identifier of the ${second}` },
            limit: { type: "integer", description: "Most results" },
          },
        },
        handler: () => "",
      }),
    );
  }
  return tools;
}
